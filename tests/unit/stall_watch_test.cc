// Stall detection with a fake clock: what counts as progress, and who is blamed.

#include "agent/stall_watch.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using Clock = StallWatch::Clock;

constexpr int kSource = 0;
constexpr int kSink = 1;

class StallWatchTest : public ::testing::Test {
 protected:
  Clock::time_point t0 = Clock::time_point{} + seconds(1000);
  StallWatch watch{seconds(10), t0, {"the local source", "the sink on dtn"}};

  /// Both ends report every 200 ms from `from` to `to`, with these counts.
  void Reports(Clock::duration from, Clock::duration to, std::uint64_t bytes, bool source = true,
               bool sink = true) {
    for (Clock::duration t = from; t <= to; t += milliseconds(200)) {
      if (source) watch.OnProgress(kSource, bytes, 0, t0 + t);
      if (sink) watch.OnProgress(kSink, bytes, 0, t0 + t);
    }
  }
};

TEST_F(StallWatchTest, MovingBytesKeepItQuiet) {
  for (int s = 0; s < 60; ++s) {
    Reports(seconds(s), seconds(s) + milliseconds(800), static_cast<std::uint64_t>(s) * 1000);
    EXPECT_FALSE(watch.Check(t0 + seconds(s) + milliseconds(900))) << s;
  }
}

TEST_F(StallWatchTest, FilesDoneCountAsProgress) {
  for (int s = 0; s < 30; ++s) {
    watch.OnProgress(kSink, 500, static_cast<std::uint64_t>(s), t0 + seconds(s));
    watch.OnProgress(kSource, 500, 0, t0 + seconds(s));
  }
  EXPECT_FALSE(watch.Check(t0 + seconds(30)));
}

TEST_F(StallWatchTest, SilentSinkIsNamed) {
  Reports(seconds(0), milliseconds(1800), 50);
  Reports(seconds(2), seconds(2), 100);  // the last move
  // The sink stops; the source keeps reporting the same count.
  Reports(seconds(2), seconds(13), 100, true, false);
  EXPECT_FALSE(watch.Check(t0 + milliseconds(11900)));  // under 10 s since the last move
  std::optional<std::string> why = watch.Check(t0 + seconds(13));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the sink on dtn has sent nothing for 11.0 s"), std::string::npos) << *why;
  EXPECT_NE(why->find("no progress for 11.0 s"), std::string::npos) << *why;
  EXPECT_TRUE(watch.Silent(kSink, t0 + seconds(13)));
  EXPECT_FALSE(watch.Silent(kSource, t0 + seconds(13)));
}

TEST_F(StallWatchTest, SourceBytesAloneAreNotProgress) {
  // A stopped sink: the source still fills its socket buffers for a while.
  Reports(seconds(0), seconds(1), 100);
  for (int i = 0; i <= 50; ++i) {
    watch.OnProgress(kSource, 100 + static_cast<std::uint64_t>(i) * 1000, 0,
                     t0 + seconds(1) + milliseconds(200 * i));
  }
  std::optional<std::string> why = watch.Check(t0 + seconds(11));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the sink on dtn has sent nothing for 10.0 s"), std::string::npos) << *why;
}

TEST_F(StallWatchTest, SilentSourceIsNamed) {
  Reports(seconds(0), seconds(1), 100);
  Reports(seconds(1), seconds(12), 100, false, true);
  std::optional<std::string> why = watch.Check(t0 + seconds(12));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the local source has sent nothing"), std::string::npos) << *why;
}

TEST_F(StallWatchTest, BothReportingButNothingMovesBlamesThePath) {
  Reports(seconds(0), seconds(12), 100);
  std::optional<std::string> why = watch.Check(t0 + seconds(12));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("both ends report"), std::string::npos) << *why;
}

TEST_F(StallWatchTest, APipeSourceMayPauseButMayNotStopReporting) {
  StallWatch pipe{seconds(10), t0, {"the local source", "the sink on dtn"}, true};
  for (int i = 0; i <= 60; ++i) {
    pipe.OnProgress(kSource, 100, 0, t0 + seconds(i));
    pipe.OnProgress(kSink, 100, 0, t0 + seconds(i));
  }
  EXPECT_FALSE(pipe.Check(t0 + seconds(60)));  // a quiet producer is not a stall
  std::optional<std::string> why = pipe.Check(t0 + seconds(62));
  ASSERT_TRUE(why);  // but ends that stop reporting are
  EXPECT_NE(why->find("neither"), std::string::npos) << *why;
}

TEST_F(StallWatchTest, BothSilent) {
  std::optional<std::string> why = watch.Check(t0 + seconds(10));
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("neither the local source nor the sink on dtn"), std::string::npos) << *why;
}

TEST_F(StallWatchTest, AControlMessageIsLifeButNotProgress) {
  for (int s = 0; s <= 12; ++s) {
    watch.OnMessage(kSource, t0 + seconds(s));
    watch.OnMessage(kSink, t0 + seconds(s));
  }
  EXPECT_TRUE(watch.Check(t0 + seconds(12)));
  EXPECT_FALSE(watch.Silent(kSink, t0 + seconds(12)));
}

TEST_F(StallWatchTest, AnEndThatIsDoneIsNotBlamedForSilence) {
  Reports(seconds(0), seconds(1), 100);
  watch.OnDone(kSource);
  Reports(seconds(1), seconds(12), 100, false, true);
  EXPECT_FALSE(watch.Silent(kSource, t0 + seconds(12)));
  std::optional<std::string> why = watch.Check(t0 + seconds(12));
  ASSERT_TRUE(why);  // the sink still has to finish: a sink that hangs in its final sync is a stall
  EXPECT_NE(why->find("both ends report"), std::string::npos) << *why;
}

}  // namespace
}  // namespace braid
