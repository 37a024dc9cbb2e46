// A stop asked of this process (Ctrl-C, SIGTERM): set by the sweep's signal handler, read by whatever waits
// long (runners/subprocess.cpp), so that a stop does not wait out the running configuration's watchdog.
#pragma once

#include <csignal>

namespace attn {

inline volatile std::sig_atomic_t& interrupt_requested() {
  static volatile std::sig_atomic_t requested = 0;
  return requested;
}

}  // namespace attn
