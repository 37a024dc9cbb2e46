// Reads and fully validates a sweep spec (docs/spec-format.md).
#pragma once

#include <filesystem>

#include "tuner/spec/spec.hpp"

namespace attn {

// Throws SpecError naming the file and the field of the first problem found.
Spec load_spec(const std::filesystem::path& path);

}  // namespace attn
