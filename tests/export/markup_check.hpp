// A small well-formedness check for the XML and HTML attn-tune writes: every
// element closed in order (HTML void elements aside). Not a validator: enough
// to catch a tag left open or closed twice.
#pragma once

#include <string>

namespace attn::test {

// Empty when well formed; else what is wrong and where.
std::string markup_problems(const std::string& text);

}  // namespace attn::test
