#include "tuner/ops/custom_operation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/rng.hpp"
#include "tuner/ops/output_declaration.hpp"

namespace attn {
namespace {

using json = nlohmann::json;

Bindings field_values(const std::vector<std::string>& fields, const json& f) {
  Bindings b;
  for (const auto& name : fields) b[name] = f.at(name).get<long long>();
  return b;
}

class CustomProblem final : public Problem {
 public:
  CustomProblem(const CustomDefinition& def, const Bindings& vars, std::uint64_t seed) : def_(def) {
    for (const auto& cb : def.buffers) {
      const auto n = static_cast<std::size_t>(cb.size->eval(vars));
      HostBuffer hb;
      hb.name = cb.name;
      hb.is_output = cb.output;
      hb.reset = cb.reset;
      if (cb.output && !cb.has_init) {
        hb.data.resize(n * element_bytes(cb.type));
        hb.poison = poison_element(cb.type);
      } else {
        // Inputs, state (inout) and outputs read before they are written: their declared values.
        hb.data = initial_values(cb.type, cb.init, n, stream_seed(seed, cb.name, 0), cb.init_value);
      }
      buffers_.push_back(std::move(hb));
    }
    if (def.flops) flops_ = static_cast<double>(def.flops->eval(vars));
    if (def.cpu_reference) compute_cpu_reference(vars);
    if (def.attention_reference) compute_attention_reference(vars);
  }

  std::vector<std::byte> params_bytes() const override { return {}; }

  // Flat outputs without a batch dimension: the checks compare them whole.
  std::vector<OutputDeclaration> outputs() const override {
    std::vector<OutputDeclaration> out;
    for (const auto& cb : def_.buffers) {
      if (!cb.output) continue;
      // i32 outputs are compared bitwise like f32 ones (same width).
      const ElementType type = cb.type == BufferType::f16    ? ElementType::F16
                               : cb.type == BufferType::bf16 ? ElementType::BF16
                                                             : ElementType::F32;
      out.push_back({cb.name, type, {}, {}});
    }
    return out;
  }

  void set_reference_outputs(std::vector<std::vector<std::byte>> outputs) override {
    reference_.clear();
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const BufferType type = output_buffer(o).type;
      std::vector<double> values(outputs[o].size() / element_bytes(type));
      for (std::size_t e = 0; e < values.size(); ++e)
        // A reference kernel that left an element unwritten verifies nothing there: NaN fails below.
        values[e] = element_is_bad(outputs[o], type, e) ? std::nan("") : element_value(outputs[o], type, e);
      reference_.push_back(std::move(values));
    }
  }

  VerifyReport verify(const std::vector<std::vector<std::byte>>& outputs, const Tolerance& tol) const override {
    if (reference_.size() != outputs.size())
      throw Error(fmt::format("no reference outputs to compare with ({})", reference_name()));
    VerifyReport r;
    double err2 = 0, ref2 = 0, worst_abs = -1;
    const std::string giver = on_cpu() ? reference_name() : "the reference kernel";
    std::size_t o = 0;
    for (const auto& cb : def_.buffers) {
      if (!cb.output) continue;
      const auto& got = outputs[o];
      const auto& want = reference_[o++];
      const std::size_t n = got.size() / element_bytes(cb.type);
      if (want.size() != n)
        throw Error(fmt::format("{} gave {} values for {}'s {}", reference_name(), want.size(), cb.name, n));
      r.rows_total += static_cast<long long>(n);
      r.rows_checked += static_cast<long long>(n);
      for (std::size_t e = 0; e < n; ++e) {
        // A reference that left an element unwritten verifies nothing there: a broken reference fails.
        if (!std::isfinite(want[e])) {
          r.passed = false;
          r.worst = fmt::format("{} left {}[{}] unwritten or not finite", reference_name(), cb.name, e);
          return r;
        }
        if (element_is_bad(got, cb.type, e)) {
          if (r.nonfinite++ == 0)
            r.worst = fmt::format("{}[{}] = {} (not written, or not finite)", cb.name, e, element_value(got, cb.type, e));
          continue;
        }
        const double g = element_value(got, cb.type, e), w = want[e];
        const double diff = std::abs(g - w);
        err2 += diff * diff;
        ref2 += w * w;
        if (diff > worst_abs) {
          worst_abs = diff;
          if (r.nonfinite == 0) r.worst = fmt::format("{}[{}] = {:.8g}, {} gives {:.8g}", cb.name, e, g, giver, w);
        }
      }
    }
    r.max_abs = std::max(0.0, worst_abs);
    r.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    r.passed = r.nonfinite == 0 && r.rel_l2 <= tol.rel_l2 && r.max_abs <= tol.max_abs;
    return r;
  }

  double flops() const override { return flops_; }
  double bytes() const override {
    double total = 0;
    for (const auto& b : buffers_) total += double(b.data.size());
    return total;
  }

 private:
  bool on_cpu() const { return def_.cpu_reference || def_.attention_reference; }

  std::string reference_name() const {
    if (def_.attention_reference) return "the attention reference";
    return def_.cpu_reference ? fmt::format("the CPU reference '{}'", def_.cpu_reference->name)
                              : fmt::format("the reference kernel '{}'", def_.reference.kernel);
  }

  // The attention operation's reference over the buffers bound to its roles; o is the one output (the loader
  // checks so).
  void compute_attention_reference(const Bindings& vars) {
    reference_.push_back(attention_role_output(*def_.attention_reference, vars,
                                               [&](const std::string& name) { return buffer_values(buffer_index(name)); }));
  }

  std::vector<double> buffer_values(std::size_t b) const {
    const BufferType type = def_.buffers[b].type;
    std::vector<double> values(buffers_[b].data.size() / element_bytes(type));
    for (std::size_t e = 0; e < values.size(); ++e) values[e] = element_value(buffers_[b].data, type, e);
    return values;
  }

  const CustomBuffer& output_buffer(std::size_t index) const {
    for (const auto& cb : def_.buffers)
      if (cb.output && index-- == 0) return cb;
    throw Error("more reference outputs than output buffers");
  }

  // The CPU function over the inputs it names; its outputs in the order of the output buffers.
  void compute_cpu_reference(const Bindings& vars) {
    const CpuReference& ref = *def_.cpu_reference;
    std::vector<std::vector<double>> inputs;
    for (const auto& name : ref.inputs) inputs.push_back(buffer_values(buffer_index(name)));
    std::vector<std::vector<double>> computed = ref.compute(vars, inputs);
    for (const auto& cb : def_.buffers) {
      if (!cb.output) continue;
      const auto at = std::find(ref.outputs.begin(), ref.outputs.end(), cb.name) - ref.outputs.begin();
      reference_.push_back(std::move(computed.at(static_cast<std::size_t>(at))));
    }
  }

  std::size_t buffer_index(const std::string& name) const {
    for (std::size_t b = 0; b < def_.buffers.size(); ++b)
      if (def_.buffers[b].name == name) return b;
    throw Error(fmt::format("no buffer '{}'", name));
  }

  const CustomDefinition& def_;
  std::vector<std::vector<double>> reference_;  // per output buffer
  double flops_ = 0;
};

class CustomOperation final : public Operation {
 public:
  explicit CustomOperation(CustomDefinition def) : def_(std::move(def)) {}

  std::string name() const override { return "custom"; }

  std::vector<ShapeField> shape_fields() const override {
    std::vector<ShapeField> fields;
    for (const auto& name : def_.fields) fields.push_back({name, ShapeField::Type::Integer, true, nullptr, {}, ""});
    return fields;
  }

  std::vector<std::string> variable_names() const override { return def_.fields; }
  Bindings variables(const json& f) const override { return field_values(def_.fields, f); }

  std::vector<std::string> buffer_names(const json&) const override {
    std::vector<std::string> names;
    for (const auto& b : def_.buffers) names.push_back(b.name);
    return names;
  }

  std::string check_shape(const json& f) const override {
    const Bindings vars = field_values(def_.fields, f);
    for (const auto& b : def_.buffers) {
      long long n = 0;
      try {
        n = b.size->eval(vars);
      } catch (const ExpressionError& e) {
        return fmt::format("buffer '{}': {}", b.name, e.what());
      }
      if (n < 1) return fmt::format("buffer '{}' has {} elements (size `{}`)", b.name, n, b.size->text());
      if (def_.cpu_reference) {
        const auto want = def_.cpu_reference->sizes(vars);
        if (const auto it = want.find(b.name); it != want.end() && it->second != n)
          return fmt::format("buffer '{}' has {} elements; the CPU reference '{}' needs {} ({})", b.name, n,
                             def_.cpu_reference->name, it->second, def_.cpu_reference->definition);
      }
    }
    if (def_.attention_reference)
      return attention_role_problem(*def_.attention_reference, vars, [&](const std::string& name) {
        for (const auto& b : def_.buffers)
          if (b.name == name) return b.size->eval(vars);
        return -1LL;
      });
    return {};
  }

  Tolerance default_tolerance(const json&) const override { return Tolerance{1e-4, 1e-3, 0}; }

  bool has_params_struct() const override { return false; }
  std::optional<DeviceReference> device_reference() const override {
    if (def_.cpu_reference || def_.attention_reference) return std::nullopt;
    return def_.reference;
  }

  std::unique_ptr<Problem> make_problem(const json& f, std::uint64_t seed) const override {
    return std::make_unique<CustomProblem>(def_, field_values(def_.fields, f), seed);
  }

 private:
  CustomDefinition def_;
};

}  // namespace

std::shared_ptr<const Operation> make_custom_operation(CustomDefinition definition) {
  return std::make_shared<CustomOperation>(std::move(definition));
}

}  // namespace attn
