#include "tests/export/markup_check.hpp"

#include <set>
#include <vector>

namespace attn::test {

std::string markup_problems(const std::string& text) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link", "col", "wbr", "source"};
  std::vector<std::string> open;
  std::size_t at = 0;
  while ((at = text.find('<', at)) != std::string::npos) {
    if (text.compare(at, 4, "<!--") == 0) {
      at = text.find("-->", at);
      if (at == std::string::npos) return "an unclosed comment";
      continue;
    }
    const std::size_t end = text.find('>', at);
    if (end == std::string::npos) return "a tag without '>' at " + std::to_string(at);
    const std::string tag = text.substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.empty() || tag[0] == '!' || tag[0] == '?') continue;  // <!DOCTYPE>, <?xml?>
    const bool closing = tag[0] == '/';
    const bool self_closing = tag.back() == '/';
    const std::size_t name_start = closing ? 1 : 0;
    const std::string name = tag.substr(name_start, tag.find_first_of(" \t\n/>", name_start) - name_start);
    if (closing) {
      if (open.empty() || open.back() != name)
        return "</" + name + "> closes " + (open.empty() ? std::string("nothing") : "<" + open.back() + ">") +
               " near offset " + std::to_string(at);
      open.pop_back();
    } else if (!self_closing && !kVoid.contains(name)) {
      open.push_back(name);
      // Raw text: style (and script) content is not markup.
      if (name == "style" || name == "script") {
        at = text.find("</" + name + ">", at);
        if (at == std::string::npos) return "<" + name + "> not closed";
      }
    }
  }
  if (!open.empty()) return "<" + open.back() + "> not closed";
  return "";
}

}  // namespace attn::test
