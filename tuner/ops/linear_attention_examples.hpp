// The published worked example for the linear_attention operation, as fixed
// inputs. A shape whose `inputs` field names it runs on these values instead
// of random ones; its M and d must match. The golden tests
// (tests/families/worked_examples_golden_test.cpp) compare the kernels' outputs with
// the outputs printed in the seed.
#pragma once

#include <string>
#include <vector>

namespace attn {

struct LinearAttentionExample {
  std::string name;
  int M, d;
  std::vector<float> q, k, v;  // [M][d]
};

const std::vector<LinearAttentionExample>& linear_attention_examples();
const LinearAttentionExample* find_linear_attention_example(const std::string& name);  // null when unknown

}  // namespace attn
