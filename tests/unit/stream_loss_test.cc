#include "session/stream_loss.h"

#include <gtest/gtest.h>

#include <string>

#include "thrown_code.h"

namespace braid {
namespace {

TEST(StreamLossTest, SurvivesWhileAStreamIsLeft) {
  BraidError e(ErrorCode::kPeerLost, "data stream from 10.0.0.2:5000 reset");
  EXPECT_EQ(SurviveStreamLoss(e, 4, 1),
            "data stream from 10.0.0.2:5000 reset; continuing on 3 streams");
  EXPECT_EQ(SurviveStreamLoss(e, 2, 1),
            "data stream from 10.0.0.2:5000 reset; continuing on 1 stream");
}

TEST(StreamLossTest, FailsWhenEveryStreamIsLost) {
  BraidError e(ErrorCode::kPeerLost, "reset");
  EXPECT_EQ(ThrownCode([&] { SurviveStreamLoss(e, 3, 3); }), ErrorCode::kPeerLost);
  try {
    SurviveStreamLoss(e, 1, 1);
    ADD_FAILURE() << "no error";
  } catch (const BraidError& thrown) {
    EXPECT_EQ(std::string(thrown.what()), "every data stream was lost; the last: reset");
  }
}

TEST(StreamLossTest, OnlyALostPeerIsSurvivable) {
  TransferState state;
  EXPECT_FALSE(LostOnItsOwn(BraidError(ErrorCode::kProtocol, "bad frame"), state));
  EXPECT_FALSE(LostOnItsOwn(BraidError(ErrorCode::kIntegrity, "bad checksum"), state));
}

TEST(StreamLossTest, AStreamThatDiesWithTheTransferIsAnEcho) {
  TransferState state;
  state.Fail(BraidError(ErrorCode::kDiskFull, "disk full"));
  EXPECT_FALSE(LostOnItsOwn(BraidError(ErrorCode::kPeerLost, "reset"), state));
}

TEST(StreamLossTest, ALostPeerWhileTheTransferGoesOnIsNews) {
  TransferState state;  // waits out the echo window once: no failure comes
  EXPECT_TRUE(LostOnItsOwn(BraidError(ErrorCode::kPeerLost, "reset"), state));
}

}  // namespace
}  // namespace braid
