#include "core/class_scheduler.h"

#include <algorithm>
#include <stdexcept>

namespace wanem {
namespace {

/// Tokens saved up while a class is idle: 10 ms of its share, at least one
/// full-size segment, so a class returning from idle gets a short head start
/// but cannot burst for long.
constexpr double kBurstSeconds = 0.010;
constexpr double kMinBurstBytes = 1514;

}  // namespace

ClassScheduler::ClassScheduler(std::uint64_t rate_bps, std::uint64_t queue_limit,
                               ClassShares shares)
    : queues_{DropTailQueue(queue_limit), DropTailQueue(queue_limit), DropTailQueue(queue_limit)} {
  if (shares.best_effort < 0 || shares.scavenger < 0 ||
      shares.best_effort + shares.scavenger >= 1) {
    throw std::invalid_argument("class shares must be >= 0 and sum to less than 100%");
  }
  const double bytes_per_ns = static_cast<double>(rate_bps) / 8e9;
  fill_per_ns_[Index(TrafficClass::kBestEffort)] = shares.best_effort * bytes_per_ns;
  fill_per_ns_[Index(TrafficClass::kScavenger)] = shares.scavenger * bytes_per_ns;
  for (std::size_t i = 0; i < kClassCount; ++i) {
    cap_[i] = std::max(fill_per_ns_[i] * kBurstSeconds * 1e9, kMinBurstBytes);
  }
}

bool ClassScheduler::Empty() const {
  return std::all_of(queues_.begin(), queues_.end(), [](const auto& q) { return q.empty(); });
}

std::uint64_t ClassScheduler::QueuedBytes() const {
  std::uint64_t total = 0;
  for (const auto& q : queues_) total += q.bytes();
  return total;
}

void ClassScheduler::Accrue(std::int64_t now_ns) {
  if (!started_) {
    started_ = true;
    last_ns_ = now_ns;
    return;
  }
  if (now_ns <= last_ns_) return;
  const double elapsed = static_cast<double>(now_ns - last_ns_);
  last_ns_ = now_ns;
  for (std::size_t i = 0; i < kClassCount; ++i) {
    if (fill_per_ns_[i] > 0) tokens_[i] = std::min(cap_[i], tokens_[i] + elapsed * fill_per_ns_[i]);
  }
}

Frame ClassScheduler::Dequeue(std::int64_t now_ns) {
  Accrue(now_ns);
  // Guarantees first: the lowest class is checked first only so that its
  // small share is never delayed behind best effort's larger one.
  for (TrafficClass c : {TrafficClass::kScavenger, TrafficClass::kBestEffort}) {
    const std::size_t i = Index(c);
    if (fill_per_ns_[i] > 0 && tokens_[i] > 0 && !queues_[i].empty()) {
      Frame frame = queues_[i].Pop();
      tokens_[i] -= static_cast<double>(frame.wire_bytes);
      return frame;
    }
  }
  for (auto& q : queues_) {
    if (!q.empty()) return q.Pop();
  }
  throw std::logic_error("ClassScheduler::Dequeue on empty queues");
}

}  // namespace wanem
