#include "tuner/sweep/progress.hpp"

#include <unistd.h>

#include <fmt/format.h>

namespace attn {
namespace {

std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

Progress::Progress(std::FILE* out, bool interactive, bool quiet) : out_(out), interactive_(interactive), quiet_(quiet) {}

Progress Progress::for_stderr(bool quiet) { return Progress(stderr, ::isatty(2) != 0, quiet); }

void Progress::note(const std::string& line) {
  if (quiet_) return;
  fmt::print(out_, "{}{}\n", interactive_ ? "\r\033[K" : "", line);
  std::fflush(out_);
}

void Progress::begin(long long total, long long already_done, bool exact) {
  total_ = total;
  done_ = already_done;
  start_ = std::chrono::steady_clock::now();
  if (quiet_) return;
  if (already_done > 0) fmt::print(out_, "resuming: {} of {} configurations already in the journal\n", already_done, total);
  else fmt::print(out_, "sweeping {}{} configurations\n", exact ? "" : "about ", total);
  std::fflush(out_);
}

void Progress::starting(const Job& job) {
  if (quiet_ || !interactive_) return;
  draw(fmt::format("{}/{} {}", job.kernel, job.shape, config_key(job.config)));
}

void Progress::finished(const ConfigResult& r) {
  ++done_;
  ++measured_;
  if (r.status == Status::ok && (!best_ms_ || r.timing->median_ms < *best_ms_)) {
    best_ms_ = r.timing->median_ms;
    best_label_ = fmt::format("{}/{} {}", r.job.kernel, r.job.shape, config_key(r.job.config));
  }
  if (quiet_) return;
  if (interactive_) {
    draw("");
    return;
  }
  const std::string outcome = r.status == Status::ok
                                  ? fmt::format("ok {:.4f} ms ±{:.1f}%", r.timing->median_ms, 100 * r.timing->rel_noise)
                                  : fmt::format("{}: {}", status_name(r.status), r.reason.substr(0, 160));
  fmt::print(out_, "[{}/{}] {}/{} {}  {}\n", done_, total_, r.job.kernel, r.job.shape, config_key(r.job.config), outcome);
  std::fflush(out_);
}

void Progress::draw(const std::string& now) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const std::string eta =
      measured_ > 0 ? clock_text(elapsed / static_cast<double>(measured_) * static_cast<double>(total_ - done_)) : "?";
  const double percent = total_ ? 100.0 * static_cast<double>(done_) / static_cast<double>(total_) : 100.0;
  std::string line = fmt::format("[{}/{}] {:.0f}%  ETA {}", done_, total_, percent, eta);
  if (best_ms_) line += fmt::format("  best {:.4f} ms ({})", *best_ms_, best_label_);
  if (!now.empty()) line += fmt::format("  | {}", now);
  if (line.size() > 200) line.resize(200);
  fmt::print(out_, "\r\033[K{}", line);
  std::fflush(out_);
}

void Progress::end() {
  if (quiet_) return;
  if (interactive_) fmt::print(out_, "\r\033[K");
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  fmt::print(out_, "swept {} configurations in {}\n", measured_, clock_text(elapsed));
  std::fflush(out_);
}

}  // namespace attn
