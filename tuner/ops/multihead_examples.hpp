// The published worked examples for the multihead_attention operation, as fixed
// inputs. A shape whose `inputs` field names one of them runs on these values
// instead of random ones; its N, d_model, h and window must match. The golden
// tests (tests/families/worked_examples_golden_test.cpp) compare the kernels' outputs
// with the outputs printed in the seed.
#pragma once

#include <string>
#include <vector>

namespace attn {

struct MultiheadExample {
  std::string name;
  int N, d_model, h, window;
  std::vector<float> q, k, v;  // [N][d_model]
};

const std::vector<MultiheadExample>& multihead_examples();
const MultiheadExample* find_multihead_example(const std::string& name);  // null when unknown

}  // namespace attn
