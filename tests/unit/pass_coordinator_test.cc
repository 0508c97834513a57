#include "sink/pass_coordinator.h"

#include <gtest/gtest.h>

#include <string>

#include "thrown_code.h"

namespace braid {
namespace {

/// The error Decide returned, as its code; kOk for none.
ErrorCode CodeOf(const std::optional<BraidError>& e) { return e ? e->code() : ErrorCode::kOk; }

PassReport Missing(std::vector<ResendRange> ranges, std::uint64_t received) {
  PassReport r;
  r.missing = std::move(ranges);
  r.bytes_received = received;
  return r;
}

TEST(PassCoordinatorTest, DecidesOnlyOnceEveryStreamIsAtItsPassEnd) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  EXPECT_FALSE(passes.ReadyToDecide());
  std::uint64_t waiting = passes.PassEnd(a, 2);
  EXPECT_FALSE(passes.ReadyToDecide());
  EXPECT_FALSE(passes.Decided(waiting));
  passes.PassEnd(b, 2);
  ASSERT_TRUE(passes.ReadyToDecide());
  EXPECT_EQ(CodeOf(passes.Decide(Missing({}, 100))), ErrorCode::kOk);
  EXPECT_TRUE(passes.Decided(waiting));
  EXPECT_TRUE(passes.done());
  EXPECT_TRUE(passes.resend().empty());
  EXPECT_EQ(passes.pass(), 1u);
  EXPECT_FALSE(passes.ReadyToDecide());
}

TEST(PassCoordinatorTest, AStreamGoneAtTheSourceAloneIsAnOrphanNotAWait) {
  // Three streams; the third timed out at the source, which tells the sink
  // nothing: its receiver here still waits on it.
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  std::size_t c = passes.Connect();
  passes.PassEnd(a, 3, 2);
  EXPECT_FALSE(passes.ReadyToDecide());
  passes.PassEnd(b, 3, 2);
  ASSERT_TRUE(passes.ReadyToDecide()) << "both streams the source still has are in";
  std::vector<ResendRange> lost{{0, 0, 4096}};
  EXPECT_EQ(CodeOf(passes.Decide(Missing(lost, 100))), ErrorCode::kOk);
  EXPECT_EQ(passes.TakeOrphans(), std::vector<std::size_t>{c});
  EXPECT_TRUE(passes.TakeOrphans().empty()) << "taken once";
  EXPECT_EQ(passes.live(), 2u);
  EXPECT_FALSE(passes.Lose(c)) << "already counted lost";
  // The next pass needs only the two.
  passes.PassEnd(a, 3, 2);
  passes.PassEnd(b, 3, 2);
  ASSERT_TRUE(passes.ReadyToDecide());
  EXPECT_EQ(CodeOf(passes.Decide(Missing({}, 4196))), ErrorCode::kOk);
  EXPECT_TRUE(passes.done());
  EXPECT_TRUE(passes.TakeOrphans().empty());
}

TEST(PassCoordinatorTest, TheLeastCountOfAPassIsWhatItWaitsFor) {
  // A stream died at the source between two of its pass ends: the first says
  // 3 left, the next 2.
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  passes.Connect();
  passes.PassEnd(a, 3, 3);
  EXPECT_FALSE(passes.ReadyToDecide());
  passes.PassEnd(b, 3, 2);
  EXPECT_TRUE(passes.ReadyToDecide());
}

TEST(PassCoordinatorTest, MoreStreamsLeftThanConnectedIsRefused) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(a, 2, 3); }), ErrorCode::kProtocol);
}

TEST(PassCoordinatorTest, WaitsForAnnouncedStreamsThatHaveNotConnectedYet) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  passes.PassEnd(a, 2);  // the source has two; the sink has seen one so far
  EXPECT_FALSE(passes.ReadyToDecide());
  std::size_t b = passes.Connect();
  EXPECT_FALSE(passes.ReadyToDecide());
  passes.PassEnd(b, 2);
  EXPECT_TRUE(passes.ReadyToDecide());
}

TEST(PassCoordinatorTest, ResendRoundAsksForWhatIsMissingThenFinishes) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  passes.PassEnd(a, 2);
  ASSERT_TRUE(passes.Lose(b));
  ASSERT_TRUE(passes.ReadyToDecide());
  std::vector<ResendRange> lost{{0, 4096, 4096}, {1, 0, 0}};
  EXPECT_EQ(CodeOf(passes.Decide(Missing(lost, 4096))), ErrorCode::kOk);
  EXPECT_FALSE(passes.done());
  EXPECT_EQ(passes.resend(), lost);
  EXPECT_EQ(passes.pass(), 1u);
  // The survivor carries the resend round and ends the next pass alone.
  EXPECT_FALSE(passes.ReadyToDecide());
  std::uint64_t second = passes.PassEnd(a, 2);
  EXPECT_EQ(second, 1u);
  ASSERT_TRUE(passes.ReadyToDecide());
  EXPECT_EQ(CodeOf(passes.Decide(Missing({}, 8192))), ErrorCode::kOk);
  EXPECT_TRUE(passes.Decided(second));
  EXPECT_TRUE(passes.done());
  EXPECT_EQ(passes.pass(), 2u);
}

TEST(PassCoordinatorTest, ALostStreamCountsAsIn) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  std::size_t c = passes.Connect();
  passes.PassEnd(a, 3);
  passes.PassEnd(b, 3);
  EXPECT_FALSE(passes.ReadyToDecide());
  EXPECT_TRUE(passes.Lose(c));
  EXPECT_TRUE(passes.ReadyToDecide());
  EXPECT_EQ(passes.live(), 2u);
  EXPECT_EQ(passes.lost(), 1u);
}

TEST(PassCoordinatorTest, AStreamLostAtItsPassEndNoLongerCounts) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  std::size_t c = passes.Connect();
  passes.PassEnd(a, 3);
  passes.PassEnd(b, 3);
  EXPECT_TRUE(passes.Lose(b));
  EXPECT_FALSE(passes.ReadyToDecide());  // c is live and still sending
  passes.PassEnd(c, 3);
  EXPECT_TRUE(passes.ReadyToDecide());
}

TEST(PassCoordinatorTest, NoDecisionWithoutALiveStream) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  EXPECT_TRUE(passes.Lose(a));
  EXPECT_FALSE(passes.ReadyToDecide());
  EXPECT_EQ(passes.live(), 0u);
}

TEST(PassCoordinatorTest, LosingAStreamTwiceOrAnUnknownOneChangesNothing) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  passes.Connect();
  EXPECT_TRUE(passes.Lose(a));
  EXPECT_FALSE(passes.Lose(a));
  EXPECT_FALSE(passes.Lose(7));
  EXPECT_EQ(passes.lost(), 1u);
  EXPECT_EQ(passes.live(), 1u);
}

TEST(PassCoordinatorTest, RejectsAPassEndOnAnUnknownStream) {
  PassCoordinator passes;
  passes.Connect();
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(1, 1); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(SIZE_MAX, 1); }), ErrorCode::kProtocol);
}

TEST(PassCoordinatorTest, RejectsASecondPassEndOnOneStream) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  passes.Connect();
  passes.PassEnd(a, 2);
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(a, 2); }), ErrorCode::kProtocol);
  EXPECT_FALSE(passes.ReadyToDecide());  // the repeat did not count for the other stream
}

TEST(PassCoordinatorTest, RejectsAPassEndOnALostStream) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  passes.Connect();
  passes.Lose(a);
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(a, 2); }), ErrorCode::kProtocol);
}

TEST(PassCoordinatorTest, RejectsAPassEndAfterTheLastPass) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  passes.PassEnd(a, 1);
  ASSERT_EQ(CodeOf(passes.Decide(Missing({}, 0))), ErrorCode::kOk);
  ASSERT_TRUE(passes.done());
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(a, 1); }), ErrorCode::kProtocol);
}

TEST(PassCoordinatorTest, RejectsStreamCountsThatDisagreeOrAreOutOfRange) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(a, 0); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(a, 65); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(a, UINT32_MAX); }), ErrorCode::kProtocol);
  passes.PassEnd(a, 2);
  EXPECT_EQ(ThrownCode([&] { passes.PassEnd(b, 3); }), ErrorCode::kProtocol);
  EXPECT_FALSE(passes.ReadyToDecide());
}

TEST(PassCoordinatorTest, GivesUpOnASourceThatSendsNothingNew) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  passes.Lose(b);
  std::vector<ResendRange> lost{{0, 0, 4096}};
  passes.PassEnd(a, 2);
  ASSERT_EQ(CodeOf(passes.Decide(Missing(lost, 10))), ErrorCode::kOk);
  // Passes that bring no new byte: the third in a row is the last.
  for (int i = 1; i < PassCoordinator::kMaxIdlePasses; ++i) {
    passes.PassEnd(a, 2);
    ASSERT_EQ(CodeOf(passes.Decide(Missing(lost, 10))), ErrorCode::kOk) << i;
  }
  passes.PassEnd(a, 2);
  std::optional<BraidError> failure = passes.Decide(Missing(lost, 10));
  EXPECT_EQ(CodeOf(failure), ErrorCode::kProtocol);
  EXPECT_NE(std::string(failure->what()).find("does not send the data asked for again"),
            std::string::npos);
}

TEST(PassCoordinatorTest, ProgressResetsTheIdleCount) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  passes.Connect();
  passes.Lose(1);
  std::vector<ResendRange> lost{{0, 0, 4096}};
  std::uint64_t received = 10;
  for (int i = 0; i < 2 * PassCoordinator::kMaxIdlePasses; ++i) {
    passes.PassEnd(a, 2);
    received += (i % 2 == 0) ? 0 : 1;  // every other pass brings a byte
    ASSERT_EQ(CodeOf(passes.Decide(Missing(lost, received))), ErrorCode::kOk) << i;
  }
}

TEST(PassCoordinatorTest, AnOrderedTargetFailsOnALostStream) {
  PassCoordinator passes(/*ordered=*/true);
  EXPECT_FALSE(passes.NeedsMissing());
  std::size_t a = passes.Connect();
  std::size_t b = passes.Connect();
  passes.PassEnd(a, 2);
  passes.Lose(b);
  std::optional<BraidError> failure = passes.Decide(PassReport{});
  EXPECT_EQ(CodeOf(failure), ErrorCode::kPeerLost);
  EXPECT_NE(std::string(failure->what()).find("written in order"), std::string::npos);
}

TEST(PassCoordinatorTest, AnOrderedTargetWithEveryStreamIsDone) {
  PassCoordinator passes(/*ordered=*/true);
  std::size_t a = passes.Connect();
  passes.PassEnd(a, 1);
  // Whatever the report says is missing, in-order writes hold it back, not lose it.
  EXPECT_EQ(CodeOf(passes.Decide(Missing({{0, 0, 10}}, 0))), ErrorCode::kOk);
  EXPECT_TRUE(passes.done());
}

TEST(PassCoordinatorTest, LostDataOfAStreamSourceCannotBeRepaired) {
  PassCoordinator passes;
  std::size_t a = passes.Connect();
  passes.PassEnd(a, 1);
  PassReport report = Missing({{0, 0, 0}}, 0);
  report.unrepairable = "host:/dst/pipe";
  std::optional<BraidError> failure = passes.Decide(report);
  EXPECT_EQ(CodeOf(failure), ErrorCode::kPeerLost);
  EXPECT_NE(std::string(failure->what()).find("host:/dst/pipe"), std::string::npos);
}

}  // namespace
}  // namespace braid
