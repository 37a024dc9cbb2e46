#include "tuner/backend/cuda/define_options.hpp"

#include <fmt/format.h>

#include "tuner/core/error.hpp"
#include "tuner/core/identifier.hpp"

namespace attn {

std::vector<std::string> define_options(const std::vector<Define>& defines, std::string_view compiler) {
  std::vector<std::string> opts;
  for (const Define& d : defines) {
    if (!is_identifier(d.name))
      throw CompileError(fmt::format("{}: -D name '{}' is not a C identifier", compiler, d.name),
                         fmt::format("refused option -D{}={}: names must match [A-Za-z_][A-Za-z0-9_]*", d.name, d.value));
    opts.push_back(fmt::format("-D{}={}", d.name, d.value));
  }
  return opts;
}

}  // namespace attn
