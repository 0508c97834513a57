#pragma once
/// Per-stream accounting behind the stream controller. The source reports each stream's
/// cumulative bytes; the ledger turns them into what each sent since the last call, how
/// long each has sent without a pause, and, over a measuring window, what the streams will
/// give once the newest have left their slow-start burst. Pure logic: no IO, no clock.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "proto/control_message.h"

namespace braid {

class StreamLedger {
 public:
  static constexpr std::size_t kSlots = kMaxStreamSamples;

  /// What one call's samples say, against the previous call's.
  struct Interval {
    double bytes = 0;     ///< payload sent by all streams since the last call
    double rtt_us = 0;    ///< byte-weighted RTT of the streams that moved data; 0 = none did
    double floor_us = 0;  ///< lowest min_rtt / rtt seen in the samples; 0 = none
    double retrans = 0;   ///< segments all streams retransmitted since the last call
    std::array<double, kSlots> stream_bytes{};  ///< `bytes` per stream index
  };

  /// Byte deltas per stream index; a stream that is new, gone or restarted counts 0 this once.
  Interval Absorb(std::span<const StreamSample> samples);

  /// `dt` seconds went by with `iv`: a stream that sent nothing for a while (parked, or
  /// stalled) starts its time afresh, as it will start slow start afresh when woken.
  void Age(double dt, const Interval& iv);

  /// Counts `iv` in the current measuring window.
  void AddToWindow(const Interval& iv);
  /// Forgets the current window (the stream count changed).
  void DiscardWindow() { window_.fill(0); }
  /// Ends the window, which measured `rate` over `window_s` seconds with `n` streams
  /// asked for, and returns what those `n` will give once settled: n times the mean of the
  /// streams that have sent for at least `mature_s` (else of those that also sent in the
  /// window before). Never above `rate`: when streams share a full link or a busy CPU, old
  /// ones give way to new ones and their mean says nothing about the future.
  double CloseWindow(double rate, double window_s, int n, double mature_s);

 private:
  std::array<std::uint64_t, kSlots> prev_bytes_{};
  std::array<std::uint32_t, kSlots> prev_retrans_{};
  std::array<bool, kSlots> have_prev_{};
  std::array<double, kSlots> sending_s_{};  ///< how long each stream has sent without a pause
  std::array<double, kSlots> idle_s_{};     ///< how long each has sent nothing
  std::array<double, kSlots> window_{};     ///< bytes per stream in the current window
  std::array<bool, kSlots> last_movers_{};  ///< streams that sent in the last whole window
};

}  // namespace braid
