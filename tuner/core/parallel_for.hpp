// The one thread pool: runs body(i) for i in [0, n) on up to WORKERS threads
// (0: every hardware thread), each taking the next index as it finishes one.
// CPU references, parallel NVRTC compilations and offline compiles use it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace attn {

template <class Body>
void parallel_for(std::size_t n, Body&& body, std::size_t workers = 0) {
  if (workers == 0) workers = std::max(1u, std::thread::hardware_concurrency());
  workers = std::min(workers, n);
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) body(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::jthread> pool;
  for (std::size_t w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < n; i = next++) body(i);
    });
}

}  // namespace attn
