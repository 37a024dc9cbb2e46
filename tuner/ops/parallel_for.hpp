// Runs body(i) for i in [0, n) on every hardware thread (CPU references).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace attn {

template <class Body>
void parallel_for(std::size_t n, Body&& body) {
  const std::size_t workers = std::min<std::size_t>(std::max(1u, std::thread::hardware_concurrency()), n);
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
