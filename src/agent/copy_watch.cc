#include "agent/copy_watch.h"

#include <chrono>
#include <thread>
#include <utility>

#include "agent/interrupt.h"

namespace braid {
namespace {

/// The longest a finished copy keeps its sink (and feed) for the hops below it.
constexpr auto kHoldFeed = std::chrono::seconds(60);
constexpr auto kHoldSlice = std::chrono::milliseconds(20);

}  // namespace

void CopyWatch::AwaitFollowers() const {
  if (!attached_) return;
  const auto until = std::chrono::steady_clock::now() + kHoldFeed;
  while (!attached_() && PendingInterrupt() == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(kHoldSlice);
  }
}

void CopyWatch::BeginAttempt() {
  MutexLock lock(mu_);
  if (started_) ++state_.retries;
  started_ = true;
  ++state_.attempts;
  state_.ready = false;
  earlier_bytes_ += attempt_bytes_;
  attempt_bytes_ = 0;
}

void CopyWatch::OnPlan(std::optional<std::uint64_t> total, std::uint64_t skipped) {
  MutexLock lock(mu_);
  state_.total = total;
  state_.skipped = skipped;
  state_.have = skipped;
  state_.ready = true;
}

void CopyWatch::OnBytes(std::uint64_t bytes) {
  MutexLock lock(mu_);
  attempt_bytes_ = bytes;
  state_.moved = earlier_bytes_ + bytes;
  state_.have = state_.skipped + bytes;
  if (state_.total && state_.have > *state_.total) state_.have = *state_.total;
}

void CopyWatch::OnAttemptEnd(double seconds) {
  MutexLock lock(mu_);
  state_.data_seconds += seconds;
}

void CopyWatch::Finish(int exit_code, ErrorCode code, std::string error) {
  MutexLock lock(mu_);
  state_.finished = true;
  state_.ready = false;
  state_.exit_code = exit_code;
  state_.error_code = code;
  state_.error = std::move(error);
  if (exit_code == 0 && state_.total) state_.have = *state_.total;
}

CopyWatch::State CopyWatch::Snapshot() const {
  MutexLock lock(mu_);
  return state_;
}

}  // namespace braid
