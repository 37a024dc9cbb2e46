// attn-tune compile: not implemented yet.
#include "commands.hpp"

namespace attn::cli {

void add_compile_command(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace attn::cli
