// CPU functions a custom operation can be verified against instead of a
// reference kernel ("reference": {"cpu": "attention"}): each names the shape
// fields it reads, the buffers it takes and writes and their sizes, and
// computes the outputs in double precision from the inputs' values.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/spec/expression.hpp"

namespace attn {

struct CpuReference {
  std::string name;
  std::string definition;            // one line, for error messages and docs
  std::vector<std::string> fields;   // shape fields it reads
  std::vector<std::string> inputs;   // buffers it reads, in this order
  std::vector<std::string> outputs;  // buffers it writes, in this order
  // Elements each of its buffers must have on a shape.
  std::function<std::map<std::string, long long>(const Bindings& fields)> sizes;
  // The outputs from the inputs (values as doubles), one vector per output.
  std::function<std::vector<std::vector<double>>(const Bindings& fields, const std::vector<std::vector<double>>& inputs)>
      compute;
};

// The registered function called NAME, or nullptr.
const CpuReference* find_cpu_reference(std::string_view name);
std::vector<std::string> cpu_reference_names();

}  // namespace attn
