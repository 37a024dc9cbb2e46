// Escaping text for XML and HTML (JUnit files, the HTML report).
#pragma once

#include <string>
#include <string_view>

namespace attn {

// & < > " ' as entities; control characters other than tab and newline, which
// XML 1.0 cannot hold at all, as '?'.
std::string xml_escape(std::string_view text);

}  // namespace attn
