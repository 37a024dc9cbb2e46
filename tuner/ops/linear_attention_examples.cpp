#include "tuner/ops/linear_attention_examples.hpp"

namespace attn {

const std::vector<LinearAttentionExample>& linear_attention_examples() {
  static const std::vector<LinearAttentionExample> examples = {
      // The worked example of section 2 ("示例验证"): M = 2, d = 4.
      {"example-linear",
       2,
       4,
       {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f},
       {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f},
       {1.0f, 2.0f, 3.0f, 4.0f, 5.0f, 6.0f, 7.0f, 8.0f}},
  };
  return examples;
}

const LinearAttentionExample* find_linear_attention_example(const std::string& name) {
  for (const auto& e : linear_attention_examples())
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace attn
