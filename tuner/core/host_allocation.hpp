// The size of the last host allocation that failed, so that a std::bad_alloc
// can be reported with what was asked for ("the host could not allocate
// 256 GiB") instead of its bare name.
#pragma once

#include <cstddef>

namespace attn {

// Bytes of the most recent failed `operator new` in this thread; 0 if none.
std::size_t last_failed_allocation_bytes();

}  // namespace attn
