#include "tuner/core/source_identity.hpp"

#include <regex>
#include <set>
#include <sstream>
#include <system_error>

#include "tuner/core/sha256.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {

namespace fs = std::filesystem;

namespace {

// The quoted names of a file's #include lines, in order.
std::vector<std::string> quoted_includes(const std::string& text) {
  static const std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)")re");
  std::vector<std::string> names;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, include_line)) names.push_back(m[1].str());
  }
  return names;
}

fs::path find_include(const std::string& name, const fs::path& including_dir, const std::vector<fs::path>& dirs) {
  std::error_code ec;
  const fs::path local = (including_dir / name).lexically_normal();
  if (fs::is_regular_file(local, ec)) return local;
  for (const auto& dir : dirs) {
    const fs::path candidate = (dir / name).lexically_normal();
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return {};
}

// The key under which a file counts once, however it was reached.
std::string file_key(const fs::path& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  return (ec ? path.lexically_normal() : canonical).string();
}

}  // namespace

SourceIdentity source_identity(const fs::path& source, const std::vector<fs::path>& include_dirs) {
  SourceIdentity identity;
  std::set<std::string> seen;
  std::string digests;
  // Depth first, so files are listed in the order the preprocessor first opens them.
  auto visit = [&](auto&& self, const fs::path& path) -> void {
    if (!seen.insert(file_key(path)).second) return;
    const std::string text = read_text_file(path);
    identity.files.push_back({path, sha256_hex(text)});
    digests += identity.files.back().sha256 + "\n";
    for (const auto& name : quoted_includes(text)) {
      const fs::path found = find_include(name, path.parent_path(), include_dirs);
      if (!found.empty()) self(self, found);
    }
  };
  visit(visit, source);
  identity.sha256 = sha256_hex(digests);
  return identity;
}

}  // namespace attn
