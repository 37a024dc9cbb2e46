// What the distribution tests compare: which configurations a leaderboard
// holds and with which status, and the sweep command lines they run.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tuner/core/text_file.hpp"

namespace attn::test {

// Quick timing: these tests compare statuses, not times.
inline const std::vector<std::string> kQuickTiming = {"--min-samples", "2", "--max-time", "0.01", "-q"};

inline std::vector<std::string> sweep_args(const std::string& spec, const std::filesystem::path& out,
                                           std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"sweep", spec, "--out", out.string()};
  args.insert(args.end(), kQuickTiming.begin(), kQuickTiming.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

inline nlohmann::json read_json(const std::filesystem::path& file) { return nlohmann::json::parse(read_text_file(file)); }

// "kernel|shape|key" -> status over every group of a leaderboard.
inline std::map<std::string, std::string> statuses(const nlohmann::json& lb) {
  std::map<std::string, std::string> m;
  for (const auto& g : lb.at("groups"))
    for (const auto& e : g.at("entries"))
      m[g.at("kernel").get<std::string>() + "|" + g.at("shape").get<std::string>() + "|" + e.at("key").get<std::string>()] =
          e.at("status");
  return m;
}
inline std::map<std::string, std::string> statuses(const std::filesystem::path& file) { return statuses(read_json(file)); }

inline int journaled_results(const std::filesystem::path& journal) {
  std::ifstream in(journal);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += line.find("\"type\":\"result\"") != std::string::npos;
  return n;
}

}  // namespace attn::test
