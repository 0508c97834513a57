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
///
/// A class may also have a cap (SLAC's Cisco 6500 held priority to 30% of the
/// link): a second token bucket filled at cap x rate that every frame of the
/// class pays from, guaranteed or not. A capped class in debt is not served,
/// even if the link would otherwise idle: its frames wait in its queue (shaping),
/// they are not dropped (policing), so a TCP flow sees delay and holds the cap
/// instead of sawing far below it. Dequeue then has nothing to give and
/// ReadyAt says when it will.

#include <array>
#include <cstdint>
#include <optional>

#include "core/delay_line.h"  // kNever
#include "core/drop_tail_queue.h"
#include "core/frame.h"
#include "core/traffic_class.h"

namespace wanem {

/// Minimum shares of the link rate, each in [0, 1); their sum must stay below 1.
/// Caps are the most of the rate a class may take, in (0, 1]; 0 = no cap.
struct ClassShares {
  double best_effort = 0.10;
  double scavenger = 0.02;
  std::array<double, kClassCount> cap{};  ///< by Index(TrafficClass)
};

class ClassScheduler {
 public:
  /// `rate_bps` of the link (0 = unlimited: shares and caps are moot, strict
  /// order), `queue_limit` bytes per class queue.
  ClassScheduler(std::uint64_t rate_bps, std::uint64_t queue_limit, ClassShares shares);

  DropTailQueue& queue(TrafficClass c) { return queues_[Index(c)]; }
  const DropTailQueue& queue(TrafficClass c) const { return queues_[Index(c)]; }
  bool Empty() const;
  std::uint64_t QueuedBytes() const;

  /// The earliest time >= `now_ns` at which Dequeue has a frame to give:
  /// `now_ns` unless every waiting class is capped and in debt. Requires !Empty().
  std::int64_t ReadyAt(std::int64_t now_ns) const;

  /// Removes and returns the frame to send at `now_ns` (the link's start time;
  /// must not go backwards); nothing while every waiting class is over its cap
  /// (then ask ReadyAt). Requires !Empty().
  std::optional<Frame> Dequeue(std::int64_t now_ns);

 private:
  void Accrue(std::int64_t now_ns);
  /// Not capped, or capped with tokens left.
  bool UnderCap(std::size_t i) const { return cap_fill_per_ns_[i] == 0 || cap_tokens_[i] > 0; }
  Frame Take(std::size_t i);

  std::array<DropTailQueue, kClassCount> queues_;
  std::array<double, kClassCount> fill_per_ns_{};      ///< guaranteed bytes per ns
  std::array<double, kClassCount> burst_{};            ///< most guarantee tokens saved up
  std::array<double, kClassCount> tokens_{};           ///< may go negative (debt)
  std::array<double, kClassCount> cap_fill_per_ns_{};  ///< 0 = no cap
  std::array<double, kClassCount> cap_burst_{};
  std::array<double, kClassCount> cap_tokens_{};  ///< may go negative (debt)
  std::int64_t last_ns_ = 0;
  bool started_ = false;
};

}  // namespace wanem
