#include "sink/pass_coordinator.h"

#include <algorithm>

#include "braid/limits.h"

namespace braid {
namespace {

[[noreturn]] void Reject(const std::string& why) {
  throw BraidError(ErrorCode::kProtocol, "protocol error: " + why);
}

}  // namespace

std::size_t PassCoordinator::Connect() {
  streams_.push_back(Stream::kSending);
  return streams_.size() - 1;
}

std::uint64_t PassCoordinator::PassEnd(std::size_t stream, std::uint32_t announced,
                                       std::uint32_t still) {
  if (stream >= streams_.size()) Reject("pass end on an unknown stream");
  if (announced == 0 || announced > static_cast<std::uint32_t>(kMaxStreams)) {
    Reject("a pass end announces " + std::to_string(announced) + " streams; at most " +
           std::to_string(kMaxStreams) + " may connect");
  }
  if (announced_ != 0 && announced_ != announced) Reject("streams disagree on their count");
  if (still > announced) Reject("a pass end says the source still has more streams than it had");
  if (still == 0) still = announced;
  if (done_) Reject("pass end after the last pass");
  if (streams_[stream] != Stream::kSending) Reject("a second pass end on one stream");
  announced_ = announced;
  still_ = still_ == 0 ? still : std::min(still_, still);
  streams_[stream] = Stream::kAtPassEnd;
  ++at_pass_end_;
  return pass_;
}

bool PassCoordinator::Lose(std::size_t stream) {
  if (stream >= streams_.size() || streams_[stream] == Stream::kLost) return false;
  if (streams_[stream] == Stream::kAtPassEnd) --at_pass_end_;
  streams_[stream] = Stream::kLost;
  ++lost_;
  return true;
}

bool PassCoordinator::ReadyToDecide() const {
  if (done_ || live() == 0) return false;
  const bool every_one_known = at_pass_end_ >= live() && at_pass_end_ + lost_ >= announced_;
  // Every stream the source still has is at its pass end: any other is gone there.
  const bool every_one_left = still_ > 0 && at_pass_end_ >= still_;
  return every_one_known || every_one_left;
}

std::optional<BraidError> PassCoordinator::Decide(const PassReport& report) {
  for (std::size_t i = 0; i < streams_.size(); ++i) {
    if (streams_[i] == Stream::kSending) {
      // Still sending, yet the source has all its streams at their pass end.
      streams_[i] = Stream::kLost;
      ++lost_;
      orphans_.push_back(i);
    } else if (streams_[i] == Stream::kAtPassEnd) {
      streams_[i] = Stream::kSending;
    }
  }
  at_pass_end_ = 0;
  still_ = 0;
  resend_.clear();
  if (ordered_ && lost_ > 0) {
    return BraidError(ErrorCode::kPeerLost,
                      "a data stream was lost, and data written in order cannot be sent "
                      "again out of order");
  }
  if (report.unrepairable) {
    return BraidError(ErrorCode::kPeerLost, "data of " + *report.unrepairable +
                                                " was lost with a data stream, and a stream "
                                                "source cannot be read again");
  }
  // Ordered targets write as blocks arrive in order, so what they hold back is
  // not yet in the file table; without a lost stream, nothing is missing.
  if (!ordered_) resend_ = report.missing;
  idle_passes_ = (pass_ > 0 && report.bytes_received == bytes_at_last_pass_) ? idle_passes_ + 1 : 0;
  bytes_at_last_pass_ = report.bytes_received;
  if (!resend_.empty() && idle_passes_ >= kMaxIdlePasses) {
    return BraidError(ErrorCode::kProtocol,
                      "protocol error: the source does not send the data asked for again");
  }
  done_ = resend_.empty();
  ++pass_;
  return std::nullopt;
}

}  // namespace braid
