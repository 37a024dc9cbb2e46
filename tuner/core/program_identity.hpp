// Which build of attn-tune is running, for what it computes itself and keeps on disk (a CPU reference): a
// rebuild must not answer from what an older build computed.
#pragma once

#include <string>

namespace attn {

// The commit built from, and the executable's size and modification time: a commit alone would not tell an
// edited, uncommitted reference apart from the committed one, while any rebuild changes the executable's.
std::string running_program_identity();

}  // namespace attn
