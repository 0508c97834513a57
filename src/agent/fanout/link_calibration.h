#pragma once
/// The unit the layout planner's rates are in, measured. What is known of a
/// copy to many destinations before it starts is its RTTs, so the planner
/// takes every host's link as alike (one unit; the hop's rates are shares of
/// it). Once data flows, the source's link is what its children share, so
/// their rates summed over their first seconds are one host's link in bytes
/// per second, and every hop's predicted rate is its share times that.
/// Pure: the caller feeds it the bytes and a clock.

#include <cstdint>
#include <optional>

namespace braid {

class LinkCalibration {
 public:
  /// What is skipped after the first byte (connects, slow start), and how long is measured.
  static constexpr double kSkipSeconds = 0.5;
  static constexpr double kMeasureSeconds = 2.0;

  /// `bytes`: what the source's children have received in all by `now_s`.
  /// Ignores samples that go back in time or in bytes (a child that began again).
  void Add(double now_s, std::uint64_t bytes);
  /// One host's link in bytes/s, once measured; nullopt before (or for a copy too
  /// short to measure).
  std::optional<double> link_Bps() const { return link_Bps_; }

 private:
  std::optional<double> first_byte_s_;  ///< when the children's first byte was seen
  std::optional<double> from_s_;        ///< the measurement's start, and the bytes then
  std::uint64_t from_bytes_ = 0;
  double last_s_ = 0;
  std::uint64_t last_bytes_ = 0;
  std::optional<double> link_Bps_;
};

}  // namespace braid
