// attn-tune worker: the hidden child process a sweep runs configurations in.
#include "commands.hpp"

#include <nlohmann/json.hpp>

#include "tuner/runners/config_runner.hpp"

namespace attn::cli {

void add_worker_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("worker", "The child process a sweep runs configurations in");
  cmd->group("");  // hidden from --help
  static std::string spec, device, settings_json, shapes;
  cmd->add_option("--spec", spec)->required();
  cmd->add_option("--device", device)->required();
  cmd->add_option("--settings", settings_json)->required();
  cmd->add_option("--shape", shapes);
  static int parent = 0;
  cmd->add_option("--parent", parent, "The sweep's process id: the worker exits when that process is gone");
  cmd->callback([&ctx] {
    const RunSettings settings = RunSettings::from_json(nlohmann::json::parse(settings_json));
    ctx.exit_code = serve_worker(spec, shapes, device, settings, /*protocol_fd=*/3, parent);
  });
}

}  // namespace attn::cli
