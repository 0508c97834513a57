#include "core/class_scheduler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace wanem {
namespace {

/// Tokens saved up while a class is idle: 10 ms of its share (or cap), at
/// least one full-size segment, so a class returning from idle gets a short
/// head start but cannot burst for long.
constexpr double kBurstSeconds = 0.010;
constexpr double kMinBurstBytes = 1514;

double BurstOf(double fill_per_ns) {
  return std::max(fill_per_ns * kBurstSeconds * 1e9, kMinBurstBytes);
}

}  // namespace

ClassScheduler::ClassScheduler(std::uint64_t rate_bps, std::uint64_t queue_limit,
                               ClassShares shares)
    : queues_{DropTailQueue(queue_limit), DropTailQueue(queue_limit), DropTailQueue(queue_limit)} {
  if (shares.best_effort < 0 || shares.scavenger < 0 ||
      shares.best_effort + shares.scavenger >= 1) {
    throw std::invalid_argument("class shares must be >= 0 and sum to less than 100%");
  }
  for (double cap : shares.cap) {
    if (!(cap >= 0 && cap <= 1)) throw std::invalid_argument("a class cap must be in 0-100%");
  }
  const double bytes_per_ns = static_cast<double>(rate_bps) / 8e9;
  fill_per_ns_[Index(TrafficClass::kBestEffort)] = shares.best_effort * bytes_per_ns;
  fill_per_ns_[Index(TrafficClass::kScavenger)] = shares.scavenger * bytes_per_ns;
  for (std::size_t i = 0; i < kClassCount; ++i) {
    burst_[i] = BurstOf(fill_per_ns_[i]);
    // A cap of 100% (or none) never holds a frame back: leave it off.
    if (shares.cap[i] > 0 && shares.cap[i] < 1) cap_fill_per_ns_[i] = shares.cap[i] * bytes_per_ns;
    cap_burst_[i] = BurstOf(cap_fill_per_ns_[i]);
    cap_tokens_[i] = cap_burst_[i];  // the shaper's bucket starts full
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
    if (fill_per_ns_[i] > 0)
      tokens_[i] = std::min(burst_[i], tokens_[i] + elapsed * fill_per_ns_[i]);
    if (cap_fill_per_ns_[i] > 0) {
      cap_tokens_[i] = std::min(cap_burst_[i], cap_tokens_[i] + elapsed * cap_fill_per_ns_[i]);
    }
  }
}

std::int64_t ClassScheduler::ReadyAt(std::int64_t now_ns) const {
  std::int64_t ready = kNever;
  const double elapsed =
      started_ && now_ns > last_ns_ ? static_cast<double>(now_ns - last_ns_) : 0.0;
  for (std::size_t i = 0; i < kClassCount; ++i) {
    if (queues_[i].empty()) continue;
    if (cap_fill_per_ns_[i] == 0) return now_ns;
    const double tokens = cap_tokens_[i] + elapsed * cap_fill_per_ns_[i];
    if (tokens > 0) return now_ns;
    // Served once the debt is repaid and a fraction of a byte more.
    const double wait = std::floor(-tokens / cap_fill_per_ns_[i]) + 1;
    ready = std::min(ready, now_ns + static_cast<std::int64_t>(wait));
  }
  if (ready == kNever) throw std::logic_error("ClassScheduler::ReadyAt on empty queues");
  return ready;
}

Frame ClassScheduler::Take(std::size_t i) {
  Frame frame = queues_[i].Pop();
  if (cap_fill_per_ns_[i] > 0) cap_tokens_[i] -= static_cast<double>(frame.wire_bytes);
  return frame;
}

std::optional<Frame> ClassScheduler::Dequeue(std::int64_t now_ns) {
  Accrue(now_ns);
  // Guarantees first: the lowest class is checked first only so that its
  // small share is never delayed behind best effort's larger one.
  for (TrafficClass c : {TrafficClass::kScavenger, TrafficClass::kBestEffort}) {
    const std::size_t i = Index(c);
    if (fill_per_ns_[i] > 0 && tokens_[i] > 0 && !queues_[i].empty() && UnderCap(i)) {
      tokens_[i] -= static_cast<double>(queues_[i].Front().wire_bytes);
      return Take(i);
    }
  }
  for (std::size_t i = 0; i < kClassCount; ++i) {
    if (!queues_[i].empty() && UnderCap(i)) return Take(i);
  }
  if (Empty()) throw std::logic_error("ClassScheduler::Dequeue on empty queues");
  return std::nullopt;
}

}  // namespace wanem
