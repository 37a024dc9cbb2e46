#include "tuner/ops/multihead_examples.hpp"

namespace attn {

const std::vector<MultiheadExample>& multihead_examples() {
  static const std::vector<MultiheadExample> examples = {
      // The worked example of section 1 ("示例验证"): N = 2, d_model = 4, h = 2.
      {"example-mha",
       2,
       4,
       2,
       0,
       {1.0f, 0.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f},
       {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f},
       {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f}},
      // The worked example of section 3: M = 2, d = 4, window 1, scale 1/sqrt(d); one head.
      {"example-sliding-window",
       2,
       4,
       1,
       1,
       {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f},
       {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f},
       {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f}},
  };
  return examples;
}

const MultiheadExample* find_multihead_example(const std::string& name) {
  for (const auto& e : multihead_examples())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace attn
