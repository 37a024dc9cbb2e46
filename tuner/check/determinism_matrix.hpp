// The determinism matrix: one configuration checked on every combination of head
// dimension, KV length, GQA ratio and mask / ALiBi / sinks, each point with
// cross-run determinism and batch invariance (B=1 against the other batch
// sizes) plus decode cache growth. Points the kernel's constraints exclude
// are skipped with the reason; the report is JSON, the table is for people.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/check/determinism_check.hpp"

namespace attn {

struct MatrixAxes {
  std::vector<int> head_dims{64, 128, 256};
  std::vector<int> kv_lengths{256, 1024, 4096};
  std::vector<int> batch_sizes{1, 2, 8, 33};                   // B=1 is the reference of batch invariance
  std::vector<int> gqa{1, 2, 4};                               // Hq / Hkv
  std::vector<std::string> toggles{"mask", "alibi", "sinks"};  // each on and off; the others stay off
  double alibi_max_bias = 8;

  // CI on PoCL: D=64, KV=256, GQA 1 and 2, features all off or all on; every batch size.
  static MatrixAxes quick();
  nlohmann::json to_json() const;
};

struct MatrixPoint {
  int D = 0, KV = 0, gqa = 1;
  bool mask = false, alibi = false, sinks = false;
  nlohmann::json fields;    // the shape under test, at B=1
  std::string skip_reason;  // the shape itself is impossible (Hq not a multiple of the GQA ratio)

  std::string label() const;  // "D=128 KV=1024 GQA=2 mask alibi"
};

// Every point, D slowest. BASE is the kernel's shape the points vary (dtype,
// Hq, causal, window and Nq come from it; Nq is capped at KV).
std::vector<MatrixPoint> matrix_points(const MatrixAxes& axes, const nlohmann::json& base);

// Runs one point: verifies the B=1 output against the reference, then the
// checks. {"point": {...}, "status": "passed" | "failed" | "incorrect" | "skipped",
// "reason", "checks": {...}}.
nlohmann::json run_matrix_point(DerivedShapes& shapes, const KernelSpec& kernel, const Config& config,
                                const MatrixPoint& point, const DeterminismOptions& options);

// Runs every point of AXES on CONFIG, BASE being the shape the points vary;
// ON_POINT (may be empty) hears each point's result as it comes.
// {"axes", "base_shape", "points": [...], "summary": {"points", "passed", "failed", "incorrect", "skipped"}}.
nlohmann::json run_determinism_matrix(Evaluator& evaluator, const KernelSpec& kernel, const Config& config,
                                      const nlohmann::json& base, const MatrixAxes& axes, const DeterminismOptions& options,
                                      const std::function<void(const nlohmann::json&)>& on_point);

// One line per point: D, KV, GQA, features, the three verdicts, and the first mismatch or the reason.
std::string matrix_table(const nlohmann::json& points);

}  // namespace attn
