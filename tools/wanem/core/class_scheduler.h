#pragma once
/// Which queued frame the bottleneck sends next, QBSS style: priority first,
/// then best effort, then scavenger, except that best effort and scavenger each
/// have a guaranteed minimum share of the rate. Strict priority alone starves
/// the lower classes completely (seen on this testbed); the guarantees bound
/// that: with all three busy, scavenger gets its share (e.g. 2%), best effort
/// its share (e.g. 10%) and priority the rest; with a class idle its share goes
/// to the others by priority order, so the scheduler never idles the link.
///
/// The guarantee is a token bucket per class filled at share x rate: a class
/// with tokens and a frame waiting is served first (and pays); otherwise the
/// highest non-empty class is served for free. Each class has its own
/// drop-tail queue. With classes off, Direction puts everything in best
/// effort and this is a plain FIFO.

#include <array>
#include <cstdint>

#include "core/drop_tail_queue.h"
#include "core/frame.h"
#include "core/traffic_class.h"

namespace wanem {

/// Minimum shares of the link rate, each in [0, 1); their sum must stay below 1.
struct ClassShares {
  double best_effort = 0.10;
  double scavenger = 0.02;
};

class ClassScheduler {
 public:
  /// `rate_bps` of the link (0 = unlimited: shares are moot, strict order),
  /// `queue_limit` bytes per class queue.
  ClassScheduler(std::uint64_t rate_bps, std::uint64_t queue_limit, ClassShares shares);

  DropTailQueue& queue(TrafficClass c) { return queues_[Index(c)]; }
  const DropTailQueue& queue(TrafficClass c) const { return queues_[Index(c)]; }
  bool Empty() const;
  std::uint64_t QueuedBytes() const;

  /// Removes and returns the frame to send at `now_ns` (the link's start time;
  /// must not go backwards). Requires !Empty().
  Frame Dequeue(std::int64_t now_ns);

 private:
  void Accrue(std::int64_t now_ns);

  std::array<DropTailQueue, kClassCount> queues_;
  std::array<double, kClassCount> fill_per_ns_{};  ///< guaranteed bytes per ns
  std::array<double, kClassCount> cap_{};          ///< most tokens saved up
  std::array<double, kClassCount> tokens_{};       ///< may go negative (debt)
  std::int64_t last_ns_ = 0;
  bool started_ = false;
};

}  // namespace wanem
