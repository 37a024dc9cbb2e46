// attn-tune gate: not implemented yet.
#include "commands.hpp"

namespace attn::cli {

void add_gate_command(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace attn::cli
