#include "tuner/cache/included_files.hpp"

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

// The #include directives of TEXT, comments not removed (an include in a comment
// only adds a file to the key).
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

void follow(const std::string& text, const fs::path& folder, const std::vector<fs::path>& include_dirs,
            std::set<std::string>& seen, IncludedFiles& result) {
  for (const Directive& d : include_directives(text)) {
    fs::path found;
    if (d.quoted && is_file(folder / d.name)) found = folder / d.name;
    for (std::size_t k = 0; found.empty() && k < include_dirs.size(); ++k)
      if (is_file(include_dirs[k] / d.name)) found = include_dirs[k] / d.name;
    if (found.empty()) {
      if (d.quoted) result.complete = false;
      continue;
    }
    const std::string key = found.lexically_normal().string();
    if (!seen.insert(key).second) continue;
    const std::string contents = read_text_file(found);
    result.files.emplace_back(key, sha256_hex(contents));
    follow(contents, found.parent_path(), include_dirs, seen, result);
  }
}

}  // namespace

IncludedFiles included_files(const std::string& source, const fs::path& source_path,
                             const std::vector<fs::path>& include_dirs) {
  IncludedFiles result;
  std::set<std::string> seen;
  follow(source, source_path.parent_path(), include_dirs, seen, result);
  return result;
}

}  // namespace attn
