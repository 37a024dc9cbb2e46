// What a library prints on stderr by itself during a capture is returned for the result's log; our own log
// lines are not (they go on to the console), and stderr is the console again afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "tuner/core/console_chatter.hpp"

namespace attn {
namespace {

void print_raw(const std::string& text) { ASSERT_EQ(::write(2, text.data(), text.size()), ssize_t(text.size())); }

TEST(StderrCapture, ReturnsALibrarysChatterAndLetsOurOwnLinesThrough) {
  testing::internal::CaptureStderr();  // the console, as the capture restores it
  std::string chatter;
  {
    StderrCapture capture;
    print_raw("1 warning generated.\n[12:00:00] [warning] our own line\nattn-tune: ours too\nno newline");
    chatter = capture.release();
  }
  print_raw("after\n");
  const std::string console = testing::internal::GetCapturedStderr();
  EXPECT_EQ(chatter, "1 warning generated.\nno newline");
  EXPECT_EQ(console, "[12:00:00] [warning] our own line\nattn-tune: ours too\nafter\n");
}

TEST(StderrCapture, CapturesInTwoThreadsTakeTurnsAndEachGetsItsOwn) {
  std::string a, b;
  std::thread other([&b] {
    StderrCapture capture;
    print_raw("from b\n");
    b = capture.release();
  });
  {
    StderrCapture capture;
    print_raw("from a\n");
    a = capture.release();
  }
  other.join();
  EXPECT_EQ(a, "from a\n");
  EXPECT_EQ(b, "from b\n");
}

}  // namespace
}  // namespace attn
