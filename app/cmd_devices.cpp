// attn-tune devices: what this machine can run kernels on.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "tuner/backend/registry.hpp"

namespace attn::cli {

void add_devices_command(CLI::App& app, Context& /*ctx*/) {
  auto* cmd = app.add_subcommand("devices", "List the OpenCL and CUDA devices attn-tune can use, with their ids");
  static bool json = false;
  cmd->add_flag("--json", json, "Print JSON instead of a table");
  cmd->callback([] {
    const DeviceListing listing = list_devices();
    if (json) {
      nlohmann::json out = {{"devices", nlohmann::json::array()}, {"notes", listing.notes}};
      for (const auto& d : listing.devices) out["devices"].push_back(d.to_json());
      fmt::print("{}\n", out.dump(2));
      return;
    }
    if (listing.devices.empty()) fmt::print("no devices found\n");
    for (const auto& d : listing.devices) {
      fmt::print("{:<12} {} [{}]\n", d.id, d.name, d.kind);
      fmt::print("{:<12} platform: {}, driver {}, {}\n", "", d.platform, d.driver_version, d.arch);
      fmt::print("{:<12} {} compute units, {:.1f} GiB, {} KiB local/shared per group, {} KiB cache, <= {} threads/group\n",
                 "", d.compute_units, double(d.global_mem_bytes) / (1ull << 30), d.local_mem_bytes / 1024,
                 d.cache_bytes / 1024, d.max_work_group_size);
    }
    for (const auto& n : listing.notes) fmt::print("note: {}\n", n);
  });
}

}  // namespace attn::cli
