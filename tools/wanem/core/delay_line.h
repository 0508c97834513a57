#pragma once
/// The propagation delay: frames leave exactly `delay` after they left the
/// bottleneck, in the order they entered (a wire does not reorder).

#include <cstdint>
#include <deque>
#include <limits>

#include "core/frame.h"

namespace wanem {

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

class DelayLine {
 public:
  explicit DelayLine(std::int64_t delay_ns) : delay_ns_(delay_ns) {}

  /// Takes a frame that left the bottleneck at `departed_ns`. Its release time
  /// is departed + delay, but never before the frame ahead of it, so order is
  /// kept even if a caller hands in departures out of order.
  void Push(Frame frame, std::int64_t departed_ns);

  /// When the first frame is due; kNever when empty.
  std::int64_t NextRelease() const { return frames_.empty() ? kNever : frames_.front().release_ns; }
  bool Due(std::int64_t now_ns) const { return NextRelease() <= now_ns; }
  Frame Pop();

  std::size_t size() const { return frames_.size(); }
  std::uint64_t bytes() const { return bytes_; }
  std::int64_t delay_ns() const { return delay_ns_; }

 private:
  std::int64_t delay_ns_;
  std::deque<Frame> frames_;
  std::uint64_t bytes_ = 0;
  std::int64_t last_release_ = std::numeric_limits<std::int64_t>::min();
};

}  // namespace wanem
