#include "tuner/core/console_chatter.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace attn {

namespace {
std::mutex& capture_turn() {
  static std::mutex m;
  return m;
}
}  // namespace

StderrCapture::StderrCapture() : turn_(capture_turn()) {
  std::fflush(stderr);
  char name[] = "/tmp/attn-tune-stderr-XXXXXX";
  capture_ = ::mkstemp(name);
  if (capture_ < 0) return;  // nothing captured: the chatter stays on the console, as before
  ::unlink(name);
  saved_ = ::dup(2);
  if (saved_ < 0 || ::dup2(capture_, 2) < 0) {
    if (saved_ >= 0) ::close(saved_);
    ::close(capture_);
    saved_ = capture_ = -1;
  }
}

StderrCapture::~StderrCapture() { (void)release(); }

std::string StderrCapture::release() {
  if (capture_ < 0) {
    if (turn_.owns_lock()) turn_.unlock();
    return {};
  }
  std::fflush(stderr);
  ::dup2(saved_, 2);
  ::close(saved_);
  std::string text;
  char buf[4096];
  ::lseek(capture_, 0, SEEK_SET);
  for (ssize_t n; (n = ::read(capture_, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(capture_);
  saved_ = capture_ = -1;
  turn_.unlock();

  const bool verbose = spdlog::should_log(spdlog::level::debug);
  std::string chatter;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size() - 1);
    const std::string_view line(text.data() + start, end - start + 1);
    if (verbose || is_own_log_line(line)) (void)!::write(2, line.data(), line.size());
    if (!is_own_log_line(line)) chatter += line;
    start = end + 1;
  }
  return chatter;
}

}  // namespace attn
