#include "tuner/export/problem_inputs.hpp"

#include <bit>
#include <string_view>

#include <nlohmann/json.hpp>

#include "tuner/core/text_file.hpp"
#include "tuner/core/version.hpp"
#include "tuner/ops/operation.hpp"

namespace attn {

namespace fs = std::filesystem;

int write_problem_inputs(const Spec& spec, const std::vector<std::string>& shapes, std::uint64_t seed, const fs::path& dir) {
  fs::create_directories(dir);
  const Operation& op = spec_operation(spec);
  nlohmann::json listed = nlohmann::json::array();
  int written = 0;
  for (const auto& name : shapes) {
    const Shape& shape = spec.shape(name);
    const auto problem = op.make_problem(shape.fields, seed);
    nlohmann::json buffers = nlohmann::json::array();
    for (const HostBuffer& b : problem->buffers()) {
      nlohmann::json entry = {{"name", b.name}, {"role", b.is_output ? "output" : "input"}, {"bytes", b.data.size()}};
      if (!b.is_output) {
        const std::string file = file_name_part(shape.name) + "." + file_name_part(b.name) + ".bin";
        write_file_atomically(dir / file, std::string_view(reinterpret_cast<const char*>(b.data.data()), b.data.size()));
        entry["file"] = file;
        ++written;
      }
      buffers.push_back(std::move(entry));
    }
    listed.push_back({{"shape", shape.name}, {"fields", shape.fields}, {"buffers", std::move(buffers)}});
  }
  const nlohmann::json manifest = {{"schema", kInputsSchema},
                                   {"attn_tune", {{"version", kVersion}, {"git_commit", kGitCommit}}},
                                   {"spec", {{"path", spec.path.string()}, {"name", spec.name}, {"sha256", spec.sha256}}},
                                   {"operation", op.name()},
                                   {"seed", seed},
                                   // The bytes as this host holds them; every machine attn-tune runs on is little-endian.
                                   {"byte_order", std::endian::native == std::endian::little ? "little" : "big"},
                                   {"shapes", std::move(listed)}};
  write_file_atomically(dir / "inputs.json", manifest.dump(1) + "\n");
  return written;
}

}  // namespace attn
