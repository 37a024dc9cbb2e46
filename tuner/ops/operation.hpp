// An operation is the contract a family of kernels implements: the shape
// fields, the buffers and their layout, the CPU reference, and the FLOP and
// byte counts throughput is reported against.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/ops/cache_growth_plan.hpp"
#include "tuner/ops/output_declaration.hpp"
#include "tuner/spec/expression.hpp"
#include "tuner/spec/spec.hpp"

namespace attn {

struct ShapeField {
  enum class Type { Integer, Number, Choice, IntegerList };
  std::string name;
  Type type = Type::Integer;
  bool required = false;
  // When not given: this value; a string for an Integer field names another field
  // to copy; null means the operation computes it (e.g. scale = 1/sqrt(D)).
  nlohmann::json default_value;
  std::vector<std::string> choices;
  std::string help;
};

// How a tuned table groups an operation's shapes into rows (tuner/export/shape_bucket.hpp): the fields taken
// exactly and those put into power-of-two ranges, in the row key's order. Empty: every field of the shapes,
// integers by range.
struct ShapeBucketFields {
  std::vector<std::string> exact;
  std::vector<std::string> pow2_range;
};

// When a buffer's DATA is written to the device again (tuner/measure/evaluator): never after the shape's
// upload (an input the kernel only reads), before each configuration's first run, or before every run, timed
// ones included (state a kernel reads and writes: running max and sum, an output it accumulates into).
enum class BufferReset { never, once, every_run };

// A buffer in kernel-argument order.
struct HostBuffer {
  std::string name;
  bool is_output = false;
  std::vector<std::byte> data;    // inputs and outputs with a declared init: the values; other outputs: sized only
  std::vector<std::byte> poison;  // outputs without an init: one NaN element, repeated over the buffer before every run
  BufferReset reset = BufferReset::never;
};

struct VerifyReport {
  bool passed = false;
  double rel_l2 = 0;   // ||out - ref|| / ||ref|| over the checked rows
  double max_abs = 0;  // max |out - ref| over the checked rows
  long long rows_checked = 0;
  long long rows_total = 0;
  long long nonfinite = 0;  // NaN/Inf anywhere in the output: unwritten elements keep the poison
  std::string worst;        // the element with the largest error, or the first non-finite one
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(VerifyReport, passed, rel_l2, max_abs, rows_checked, rows_total, nonfinite,
                                                worst)

// A reference computed on the device by another kernel of the same spec: the
// kernel's preset PRESET, or its baseline, or its first configuration on the shape.
struct DeviceReference {
  std::string kernel;
  std::string preset;
};

class Problem {
 public:
  virtual ~Problem() = default;

  // Inputs then outputs, in the kernels' argument order (the workspace and the
  // params struct follow them).
  const std::vector<HostBuffer>& buffers() const { return buffers_; }
  virtual std::vector<std::byte> params_bytes() const = 0;

  // One declaration per output buffer, in buffers() order: what the checks
  // compare and how they slice a sequence out of a batch.
  virtual std::vector<OutputDeclaration> outputs() const = 0;

  // OUTPUTS holds every output buffer's bytes, in buffers() order.
  virtual VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const = 0;

  // Computes the reference for the rows TOL verifies, ahead of the first verify()
  // (so that its cost is not charged to the first configuration's watchdog).
  virtual void precompute_reference(const Tolerance& tol) const { (void)tol; }

  // Whether the reference can be kept on disk (cache/reference_store.hpp): not one computed on the device, nor
  // one computed by code outside attn-tune, which may change under the same name.
  virtual bool keeps_reference() const { return false; }
  // The values precompute_reference(TOL) computes (computing them when needed); empty when not kept.
  virtual std::vector<double> reference_values(const Tolerance& tol) const {
    (void)tol;
    return {};
  }
  // Takes VALUES, an identical problem's reference_values(TOL), instead of computing them; false (and nothing
  // taken) when they do not fit.
  virtual bool adopt_reference(const Tolerance& tol, std::vector<double> values) const {
    (void)tol;
    (void)values;
    return false;
  }

  // The outputs of the operation's device_reference() kernel on this problem,
  // for operations verified against one (in buffers()' output order).
  virtual void set_reference_outputs(std::vector<std::vector<std::byte>> outputs);

  virtual double flops() const = 0;  // FlashAttention's convention for attention
  virtual double bytes() const = 0;  // each input read once, each output written once

  // An operation's own throughput unit, e.g. {"pairs", N*M} for similarity
  // search; an empty unit when GFLOP/s and GB/s say it all.
  virtual std::string work_unit() const { return {}; }
  virtual double work_items() const { return 0; }

 protected:
  std::vector<HostBuffer> buffers_;
};

class Operation {
 public:
  virtual ~Operation() = default;
  virtual std::string name() const = 0;
  virtual std::vector<ShapeField> shape_fields() const = 0;
  // Integer variables a shape gives expressions (constraints, launch geometry, defines).
  virtual std::vector<std::string> variable_names() const = 0;
  virtual Bindings variables(const nlohmann::json& fields) const = 0;
  // Real-valued variables for float kernel arguments: by default the Number
  // shape fields that are set; an operation adds those it computes (a default scale).
  std::vector<std::string> number_variable_names() const;
  virtual NumberBindings number_variables(const nlohmann::json& fields) const;
  // The names of make_problem(FIELDS)'s buffers, in order, without drawing them
  // (what a kernel's `arguments` bind by name). The default draws a problem:
  // an operation overrides it when that is costly.
  virtual std::vector<std::string> buffer_names(const nlohmann::json& fields) const;
  // Checks relations between fields; returns an error message, or empty when valid.
  virtual std::string check_shape(const nlohmann::json& fields) const = 0;
  // The shape field that counts independent sequences (batch invariance checks), or empty.
  virtual std::string batch_field() const { return {}; }
  // FIELDS with a batch of N sequences (the first N of FIELDS' sequences, drawn alike).
  virtual nlohmann::json with_batch(const nlohmann::json& fields, int n) const;
  // A one-sequence shape whose inputs are sequence B of FIELDS' batch, drawn by
  // the operation itself; null when the operation cannot (the checks then copy
  // the sequence's share of each input).
  virtual nlohmann::json sequence_shape(const nlohmann::json& fields, int b) const {
    (void)fields;
    (void)b;
    return nullptr;
  }
  // The decode cache growth check of FIELDS over STEPS positions; by default
  // not applicable (the operation has no decode cache).
  virtual CacheGrowthPlan cache_growth(const nlohmann::json& fields, int steps) const;
  virtual ShapeBucketFields bucket_fields() const { return {}; }
  // Tolerance used when the spec gives none.
  virtual Tolerance default_tolerance(const nlohmann::json& fields) const = 0;

  // Whether kernels may take the parameter struct (params_bytes()); a custom
  // operation has none, so its kernels declare scalar arguments instead.
  virtual bool has_params_struct() const { return true; }
  // A kernel of the spec whose outputs are the reference, instead of a CPU one.
  virtual std::optional<DeviceReference> device_reference() const { return std::nullopt; }

  // Inputs drawn from SEED; sequence b of a batched input depends on (SEED, b) only.
  virtual std::unique_ptr<Problem> make_problem(const nlohmann::json& fields, std::uint64_t seed) const = 0;
};

// Throws UsageError listing the known operations.
const Operation& find_operation(const std::string& name);
// SPEC's operation: the one it declares (a custom operation), else find_operation(spec.operation).
const Operation& spec_operation(const Spec& spec);
std::vector<std::string> operation_names();

}  // namespace attn
