#include "tuner/record/measurement_store.hpp"

#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "tuner/core/sha256.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

bool turned_off() {
  const char* v = std::getenv("ATTN_TUNE_MEASUREMENT_STORE");
  return v && (std::string(v) == "0" || std::string(v) == "off");
}

bool worth_keeping(Status s) { return s != Status::crashed && s != Status::timeout && s != Status::host_oom; }

}  // namespace

MeasurementStore::MeasurementStore(std::filesystem::path dir, const nlohmann::json& identity, const DeviceInfo& device)
    : identity_(identity) {
  // The id ("cuda:0") says which device of this host; the model and driver say what it measured on.
  identity_["device_name"] = device.name;
  identity_["driver_version"] = device.driver_version;
  if (dir.empty() || turned_off()) return;
  path_ = dir / "measurements" / (sha256_hex(identity_.dump()) + ".json");
}

std::map<std::string, ConfigResult> MeasurementStore::read() const {
  std::map<std::string, ConfigResult> out;
  if (!enabled()) return out;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path_, ec)) return out;
  try {
    const nlohmann::json j = nlohmann::json::parse(read_text_file(path_));
    if (j.at("identity") != identity_) return out;  // a hash collision, or a hand-edited file
    for (const auto& r : j.at("results")) {
      ConfigResult result = ConfigResult::from_json(r);
      result.replayed = true;
      out[result.job.key()] = std::move(result);
    }
  } catch (const std::exception&) {
    out.clear();
  }
  return out;
}

std::string MeasurementStore::write(const std::vector<ConfigResult>& results) const {
  if (!enabled()) return {};
  std::map<std::string, ConfigResult> kept = read();
  for (const auto& r : results)
    if (worth_keeping(r.status)) kept[r.job.key()] = r;
  nlohmann::json list = nlohmann::json::array();
  for (auto& [_, r] : kept) {
    nlohmann::json j = r.to_json();
    j.erase("replayed");  // read() marks it
    list.push_back(std::move(j));
  }
  try {
    std::filesystem::create_directories(path_.parent_path());
    write_file_atomically(path_, nlohmann::json{{"identity", identity_}, {"results", list}}.dump() + "\n");
  } catch (const std::exception& e) {
    return fmt::format("the measurement store {} could not be written ({}): the next sweep measures again", path_.string(),
                       e.what());
  }
  return {};
}

}  // namespace attn
