// attn-tune export: not implemented yet.
#include "commands.hpp"

namespace attn::cli {

void add_export_command(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace attn::cli
