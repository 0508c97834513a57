#pragma once
/// The bottleneck's serialiser: a frame occupies the link for its wire bytes
/// divided by the rate, and the next one cannot start before it is done. This
/// is the rate limit; the queue in front of it is what makes it a router.

#include <cstdint>

namespace wanem {

class Link {
 public:
  /// `rate_bps` bits per second; 0 means unlimited (frames take no time).
  explicit Link(std::uint64_t rate_bps) : rate_bps_(rate_bps) {}

  /// The earliest time (ns) the next frame can start.
  std::int64_t free_at() const { return free_at_; }

  /// Sends `wire_bytes` starting at max(free_at(), `earliest`); returns when
  /// its last bit has left. Exact over any number of frames: the division's
  /// remainder is carried, so there is no drift from rounding.
  std::int64_t Transmit(std::int64_t earliest, std::uint64_t wire_bytes);

  /// How long `wire_bytes` occupy the link (rounded down to a ns).
  std::int64_t Duration(std::uint64_t wire_bytes) const {
    return rate_bps_ == 0 ? 0
                          : static_cast<std::int64_t>(wire_bytes * 8'000'000'000ull / rate_bps_);
  }

  std::uint64_t rate_bps() const { return rate_bps_; }

 private:
  std::uint64_t rate_bps_;
  std::int64_t free_at_ = 0;
  std::uint64_t remainder_ = 0;  ///< bit-nanoseconds not yet a whole ns
};

}  // namespace wanem
