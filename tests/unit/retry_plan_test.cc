#include "agent/retry_plan.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

using std::chrono::milliseconds;

BraidError Failure(ErrorCode code) { return BraidError(code, "why"); }

TEST(RetryPlanTest, BacksOffByDoublingUpToThirtySeconds) {
  EXPECT_EQ(RetryPlan::DelayBefore(1), milliseconds(1000));
  EXPECT_EQ(RetryPlan::DelayBefore(2), milliseconds(2000));
  EXPECT_EQ(RetryPlan::DelayBefore(3), milliseconds(4000));
  EXPECT_EQ(RetryPlan::DelayBefore(5), milliseconds(16000));
  EXPECT_EQ(RetryPlan::DelayBefore(6), milliseconds(30000));
  EXPECT_EQ(RetryPlan::DelayBefore(100), milliseconds(30000));
}

TEST(RetryPlanTest, RetriesWhatTheNetworkCausesOnceTheCopyStarted) {
  RetryPlan plan(5);
  EXPECT_FALSE(plan.Decide(Failure(ErrorCode::kPeerLost), true)) << "not started yet";
  plan.NoteStarted();
  for (ErrorCode code : {ErrorCode::kPeerLost, ErrorCode::kStalled, ErrorCode::kHostUnreachable,
                         ErrorCode::kDataConnect}) {
    EXPECT_TRUE(plan.Decide(Failure(code), true)) << ErrorName(code);
  }
  EXPECT_EQ(plan.retries(), 4);
  EXPECT_EQ(plan.delay(), milliseconds(8000));
  ASSERT_EQ(plan.notes().size(), 4u);
  EXPECT_EQ(plan.notes()[0].error, "why");
  EXPECT_EQ(plan.notes()[0].exit_code, ExitCodeFor(ErrorCode::kPeerLost));
  EXPECT_DOUBLE_EQ(plan.notes()[0].delay_s, 1);
  EXPECT_DOUBLE_EQ(plan.notes()[3].delay_s, 8);
}

TEST(RetryPlanTest, NeverRetriesWhatARetryCannotFix) {
  RetryPlan plan(100);
  plan.NoteStarted();
  for (ErrorCode code :
       {ErrorCode::kUsage, ErrorCode::kAuthRefused, ErrorCode::kHostKeyUnknown,
        ErrorCode::kHostKeyChanged, ErrorCode::kRemoteMissing, ErrorCode::kSourceUnreadable,
        ErrorCode::kTargetUnwritable, ErrorCode::kDiskFull, ErrorCode::kProtocol,
        ErrorCode::kIntegrity, ErrorCode::kInterrupted, ErrorCode::kNothingToResume,
        ErrorCode::kInternal}) {
    EXPECT_FALSE(plan.Decide(Failure(code), true)) << ErrorName(code);
  }
  EXPECT_EQ(plan.retries(), 0);
}

TEST(RetryPlanTest, NeverRetriesACopyThatCannotResume) {
  RetryPlan plan(3);
  plan.NoteStarted();
  EXPECT_FALSE(plan.Decide(Failure(ErrorCode::kPeerLost), /*resumable=*/false));
}

TEST(RetryPlanTest, StopsAfterItsRetries) {
  RetryPlan plan(2);
  plan.NoteStarted();
  EXPECT_TRUE(plan.Decide(Failure(ErrorCode::kPeerLost), true));
  EXPECT_TRUE(plan.Decide(Failure(ErrorCode::kPeerLost), true));
  EXPECT_FALSE(plan.Decide(Failure(ErrorCode::kPeerLost), true));
  EXPECT_EQ(plan.retries(), 2);
  RetryPlan none(0);
  none.NoteStarted();
  EXPECT_FALSE(none.Decide(Failure(ErrorCode::kPeerLost), true));
}

}  // namespace
}  // namespace braid
