#include "autostreams/stream_ledger.h"

#include <algorithm>

namespace braid {
namespace {

/// A stream that sent nothing for this long has been parked (or stalled).
constexpr double kPause = 1.0;

}  // namespace

StreamLedger::Interval StreamLedger::Absorb(std::span<const StreamSample> samples) {
  Interval iv;
  std::array<bool, kSlots> seen{};
  double rtt_weight = 0;
  for (const StreamSample& s : samples) {
    if (s.index >= kSlots || seen[s.index]) continue;
    seen[s.index] = true;
    const std::uint64_t delta =
        have_prev_[s.index] && s.bytes >= prev_bytes_[s.index] ? s.bytes - prev_bytes_[s.index] : 0;
    const std::uint32_t lost = have_prev_[s.index] && s.retrans >= prev_retrans_[s.index]
                                   ? s.retrans - prev_retrans_[s.index]
                                   : 0;
    prev_bytes_[s.index] = s.bytes;
    prev_retrans_[s.index] = s.retrans;
    iv.retrans += lost;
    have_prev_[s.index] = true;
    iv.bytes += static_cast<double>(delta);
    iv.stream_bytes[s.index] = static_cast<double>(delta);
    // An idle stream's RTT is stale: only streams that moved data say how the path is now.
    if (delta > 0 && s.rtt_us > 0) {
      iv.rtt_us += static_cast<double>(s.rtt_us) * static_cast<double>(delta);
      rtt_weight += static_cast<double>(delta);
      if (iv.floor_us == 0 || s.rtt_us < iv.floor_us) iv.floor_us = s.rtt_us;
    }
    if (s.min_rtt_us > 0 && (iv.floor_us == 0 || s.min_rtt_us < iv.floor_us)) {
      iv.floor_us = s.min_rtt_us;
    }
  }
  for (std::size_t i = 0; i < kSlots; ++i) {
    if (!seen[i]) have_prev_[i] = false;
  }
  iv.rtt_us = rtt_weight > 0 ? iv.rtt_us / rtt_weight : 0;
  return iv;
}

void StreamLedger::Age(double dt, const Interval& iv) {
  for (std::size_t i = 0; i < kSlots; ++i) {
    idle_s_[i] = iv.stream_bytes[i] > 0 ? 0 : idle_s_[i] + dt;
    sending_s_[i] = idle_s_[i] > kPause ? 0 : sending_s_[i] + dt;
  }
}

void StreamLedger::AddToWindow(const Interval& iv) {
  for (std::size_t i = 0; i < kSlots; ++i) window_[i] += iv.stream_bytes[i];
}

double StreamLedger::CloseWindow(double rate, double window_s, int n, double mature_s) {
  std::array<bool, kSlots> movers{};
  double mature_bytes = 0, old_bytes = 0;
  int mature = 0, old = 0;
  for (std::size_t i = 0; i < kSlots; ++i) {
    movers[i] = window_[i] > 0;
    if (!movers[i]) continue;
    if (sending_s_[i] >= mature_s) {
      mature_bytes += window_[i];
      ++mature;
    }
    if (last_movers_[i]) {
      old_bytes += window_[i];
      ++old;
    }
  }
  last_movers_ = movers;
  DiscardWindow();
  if (!(window_s > 0)) return rate;
  if (mature > 0) return std::min(rate, mature_bytes / window_s / mature * n);
  if (old > 0) return std::min(rate, old_bytes / window_s / old * n);
  return rate;
}

}  // namespace braid
