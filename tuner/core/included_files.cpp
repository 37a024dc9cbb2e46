#include "tuner/core/included_files.hpp"

#include <set>
#include <system_error>

#include "tuner/core/sha256.hpp"
#include "tuner/core/text_file.hpp"

namespace attn {
namespace {

namespace fs = std::filesystem;

struct Directive {
  std::string name;
  bool quoted = false;
};

// The #include directives of TEXT, comments not removed (an include in a
// comment at the start of a line only adds a file).
std::vector<Directive> include_directives(const std::string& text) {
  std::vector<Directive> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::size_t i = pos;
    auto skip_space = [&] {
      while (i < end && (text[i] == ' ' || text[i] == '\t')) ++i;
    };
    skip_space();
    if (i < end && text[i] == '#') {
      ++i;
      skip_space();
      if (text.compare(i, 7, "include") == 0) {
        i += 7;
        skip_space();
        if (i < end && (text[i] == '"' || text[i] == '<')) {
          const char close = text[i] == '"' ? '"' : '>';
          const std::size_t close_at = text.find(close, i + 1);
          if (close_at != std::string::npos && close_at < end)
            out.push_back({text.substr(i + 1, close_at - i - 1), close == '"'});
        }
      }
    }
    pos = end + 1;
  }
  return out;
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

fs::path find_include(const Directive& d, const fs::path& including_dir, const std::vector<fs::path>& dirs) {
  if (d.quoted && is_file(including_dir / d.name)) return (including_dir / d.name).lexically_normal();
  for (const auto& dir : dirs)
    if (is_file(dir / d.name)) return (dir / d.name).lexically_normal();
  return {};
}

// The key under which a file counts once, however it was reached.
std::string file_key(const fs::path& path) {
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(path, ec);
  return (ec ? path.lexically_normal() : canonical).string();
}

void follow(const std::string& text, const fs::path& folder, const std::vector<fs::path>& include_dirs,
            std::set<std::string>& seen, IncludedFiles& result) {
  for (const Directive& d : include_directives(text)) {
    const fs::path found = find_include(d, folder, include_dirs);
    if (found.empty()) {
      if (d.quoted) result.missing.push_back(d.name);
      continue;
    }
    if (!seen.insert(file_key(found)).second) continue;
    const std::string contents = read_text_file(found);
    result.files.push_back({found, sha256_hex(contents)});
    // Depth first, so files are listed in the order the preprocessor first opens them.
    follow(contents, found.parent_path(), include_dirs, seen, result);
  }
}

}  // namespace

IncludedFiles included_files(const std::string& text, const fs::path& source_path,
                             const std::vector<fs::path>& include_dirs) {
  IncludedFiles result;
  std::set<std::string> seen;
  if (!source_path.empty()) seen.insert(file_key(source_path));
  follow(text, source_path.parent_path(), include_dirs, seen, result);
  return result;
}

}  // namespace attn
