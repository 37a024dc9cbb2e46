#include "tuner/core/host_allocation.hpp"

#include <cstdlib>
#include <new>

namespace attn {
namespace {
thread_local std::size_t failed_bytes = 0;
}

std::size_t last_failed_allocation_bytes() { return failed_bytes; }

}  // namespace attn

// The replaceable global allocation functions ([new.delete.single]): the same
// behaviour as the library's, plus recording the size of a failed request.
// The array and nothrow forms call these.
void* operator new(std::size_t bytes) {
  for (;;) {
    if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
    if (std::new_handler handler = std::get_new_handler()) {
      handler();
      continue;
    }
    attn::failed_bytes = bytes;
    throw std::bad_alloc();
  }
}

void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
