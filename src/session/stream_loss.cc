#include "session/stream_loss.h"

namespace braid {

bool LostOnItsOwn(const BraidError& error, const TransferState& state) {
  return error.code() == ErrorCode::kPeerLost && !state.FailsWithin(kStreamEchoWindow);
}

std::string SurviveStreamLoss(const BraidError& error, std::size_t connected, std::size_t lost) {
  if (lost >= connected) {
    throw BraidError(ErrorCode::kPeerLost,
                     "every data stream was lost; the last: " + std::string(error.what()));
  }
  std::size_t left = connected - lost;
  return std::string(error.what()) + "; continuing on " + std::to_string(left) + " stream" +
         (left == 1 ? "" : "s");
}

}  // namespace braid
