// attn-tune determinism: not implemented yet.
#include "commands.hpp"

namespace attn::cli {

void add_determinism_command(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace attn::cli
