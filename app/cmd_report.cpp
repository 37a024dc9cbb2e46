// attn-tune report: not implemented yet.
#include "commands.hpp"

namespace attn::cli {

void add_report_command(CLI::App& /*app*/, Context& /*ctx*/) {}

}  // namespace attn::cli
