#include "agent/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

namespace braid {
namespace {

// Death tests: each runs in a child process, since an interrupt, once
// requested, stays requested and the backstop ends the process.

TEST(InterruptDeathTest, TheBackstopEndsAnAgentThatDoesNotStopByItself) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InterruptBackstop backstop;
        RequestInterrupt(SIGINT);
        std::this_thread::sleep_for(std::chrono::seconds(30));  // stuck, as in an ssh call
      },
      ::testing::ExitedWithCode(130), "interrupted by SIGINT; stopped without waiting");
}

TEST(InterruptDeathTest, SigtermIsExit143) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        InterruptBackstop backstop;
        RequestInterrupt(SIGTERM);
        std::this_thread::sleep_for(std::chrono::seconds(30));
      },
      ::testing::ExitedWithCode(143), "interrupted by SIGTERM");
}

TEST(InterruptDeathTest, ASecondSignalExitsAtOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        RequestInterrupt(SIGINT);
        RequestInterrupt(SIGINT);
        std::abort();  // not reached
      },
      ::testing::ExitedWithCode(130), "interrupted again; exiting now");
}

TEST(InterruptDeathTest, AnInterruptIsAnErrorNamingTheSignal) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        RequestInterrupt(SIGTERM);
        try {
          ThrowIfInterrupted();
        } catch (const BraidError& e) {
          std::fprintf(stderr, "%s %d\n", e.what(), InterruptExitCode());
          std::_Exit(e.code() == ErrorCode::kInterrupted ? 0 : 1);
        }
        std::_Exit(2);
      },
      ::testing::ExitedWithCode(0), "interrupted by SIGTERM 143");
}

TEST(InterruptTest, NothingIsPendingUntilASignalArrives) {
  EXPECT_EQ(PendingInterrupt(), 0);
  EXPECT_NO_THROW(ThrowIfInterrupted());
  InterruptBackstop backstop;  // and it stops without ending anything
}

}  // namespace
}  // namespace braid
