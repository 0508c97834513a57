#pragma once
/// A fluid model of a network path for the stream controller's tests: no sockets, a fake
/// clock, and the per-stream samples the source would report (Progress::stream_samples).
///
/// One bottleneck of capacity C shared max-min fairly. A loss-limited stream (cubic or
/// reno) cannot go faster than the Mathis rate gain * 1.22 * MSS / (RTT * sqrt(p)), nor
/// than its socket buffer over the RTT; with no random loss it is elastic and, being
/// loss-based, fills the bottleneck buffer. A bbr-like stream is elastic but keeps no
/// standing queue. When finite demands exceed C, the queue grows until the RTT it adds
/// slows the streams to C (or the buffer is full). Streams newly given data ramp up with
/// a time constant of a few RTTs, as slow start does; parked ones keep their stale RTT.
/// Cross traffic is elastic loss-based flows (they fill the buffer) and/or an
/// unresponsive rate.
///
/// Two optional effects make a loss-limited path look as it does through wanem: a stream
/// (re)started overshoots to the link rate and decays to its loss limit over seconds (slow
/// start, then cubic's retreat; a stream restarted after idling does not burst again), and each
/// stream's demand wobbles by a random factor correlated over seconds (its sawtooth, with random
/// losses).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "proto/control_message.h"

namespace braid::sim {

struct PathParams {
  double capacity_bps = 1e9;  ///< bottleneck, bits/s
  double base_rtt_s = 0.05;   ///< propagation RTT, no queue
  double loss = 0;            ///< random loss probability per packet; 0 = none
  /// Throughput over reno's Mathis rate; ~4 makes cubic's measured 115 Mbit/s on one
  /// stream at 50 ms and 0.01% loss (shared/measuring.md).
  double cc_gain = 4.07;
  bool bbr = false;         ///< elastic, no standing queue (ignores `loss`)
  double buffer_s = 0.06;   ///< bottleneck buffer, as seconds of queueing at C
  double window_bytes = 0;  ///< per-stream socket buffer; 0 = unlimited
  double noise = 0.02;      ///< relative per-stream, per-step throughput noise
  double overshoot_s = 0;   ///< new loss-limited streams start at the link rate and decay
                            ///< to their limit with this time constant; 0 = off
  double sawtooth = 0;      ///< std. deviation of each stream's log demand factor; 0 = off
  double sawtooth_s = 3;    ///< its correlation time
  int connected = 64;       ///< streams the engine managed to connect
  std::uint32_t seed = 1;
};

class SimulatedPath {
 public:
  static constexpr double kMss = 1448;
  /// A loss-based queue sawtooths below full; this is its average fill.
  static constexpr double kFill = 0.85;

  explicit SimulatedPath(const PathParams& p)
      : p_(p), rng_(p.seed), streams_(static_cast<std::size_t>(std::clamp(p.connected, 0, 64))) {}

  /// Elastic loss-based flows (each fills the buffer) and an unresponsive rate, bits/s.
  void SetCrossTraffic(int elastic_flows, double unresponsive_bps) {
    cross_elastic_ = elastic_flows;
    cross_rate_ = unresponsive_bps / 8;
  }
  /// The path changes: random loss becomes `loss`.
  void SetLoss(double loss) { p_.loss = loss; }
  /// Pacing of our total, bytes/s; 0 = none.
  void SetPace(double bytes_per_s) { pace_ = bytes_per_s; }

  /// Advances the path by `dt` seconds with the first `requested` connected streams sending.
  void Advance(double dt, int requested) {
    active_ = std::clamp(requested, 0, static_cast<int>(streams_.size()));
    const double rtt_guess = p_.base_rtt_s + queue_s_;
    std::normal_distribution<double> gauss;
    for (int i = 0; i < static_cast<int>(streams_.size()); ++i) {
      Stream& s = streams_[static_cast<std::size_t>(i)];
      if (i >= active_) {
        // Idle: the kernel restarts from a small window, but slow start now ends at the
        // threshold its last losses set, so there is no second burst.
        s.ramp = kRampStart;
        s.rate = 0;
        continue;
      }
      s.ramp = 1 - (1 - s.ramp) * std::exp(-dt / (4 * rtt_guess));
      s.boost = p_.overshoot_s > 0 ? s.boost * std::exp(-dt / p_.overshoot_s) : 0;
      if (p_.sawtooth > 0) {
        // Ornstein-Uhlenbeck: mean 0, deviation `sawtooth`, correlated over `sawtooth_s`.
        const double a = dt / p_.sawtooth_s;
        s.wobble += -a * s.wobble + p_.sawtooth * std::sqrt(2 * a) * gauss(rng_);
      }
    }
    Solve();
    const double rtt = p_.base_rtt_s + queue_s_;
    std::uniform_real_distribution<double> jitter(-1.0, 1.0);
    delivered_ = 0;
    for (int i = 0; i < active_; ++i) {
      Stream& s = streams_[static_cast<std::size_t>(i)];
      const double noisy = s.rate * (1 + p_.noise * jitter(rng_));
      s.bytes += static_cast<std::uint64_t>(std::max(0.0, noisy * dt));
      delivered_ += s.rate;
      s.rtt_us = static_cast<std::uint32_t>(rtt * 1e6 * (1 + 0.01 * jitter(rng_)));
      s.min_rtt_us = s.min_rtt_us == 0 ? s.rtt_us : std::min(s.min_rtt_us, s.rtt_us);
      s.retrans_f += s.rate * dt / kMss * p_.loss;
      s.delivery = s.rate;
    }
  }

  /// What the source reports: one sample per connected stream, idle ones included.
  std::vector<StreamSample> Samples() const {
    std::vector<StreamSample> out;
    for (std::size_t i = 0; i < streams_.size(); ++i) {
      const Stream& s = streams_[i];
      StreamSample x;
      x.index = static_cast<std::uint16_t>(i);
      x.bytes = s.bytes;
      x.rtt_us = s.rtt_us;
      x.min_rtt_us = s.min_rtt_us;
      x.cwnd = static_cast<std::uint32_t>(s.delivery * (p_.base_rtt_s + queue_s_) / kMss);
      x.retrans = static_cast<std::uint32_t>(s.retrans_f);
      x.delivery_rate = static_cast<std::uint64_t>(s.delivery);
      out.push_back(x);
    }
    return out;
  }

  int active() const { return active_; }
  /// Our total throughput in the last step, bits/s, without noise.
  double throughput_bps() const { return delivered_ * 8; }
  double rtt_s() const { return p_.base_rtt_s + queue_s_; }
  double capacity_bps() const { return p_.capacity_bps; }

  /// Our steady throughput with `n` fully ramped streams and today's cross traffic, bits/s.
  double SteadyThroughput(int n) const {
    SimulatedPath copy = *this;
    for (auto& s : copy.streams_) {
      s.ramp = 1;
      s.boost = 0;
      s.wobble = 0;
    }
    copy.active_ = std::clamp(n, 0, static_cast<int>(copy.streams_.size()));
    copy.Solve();
    double total = 0;
    for (int i = 0; i < copy.active_; ++i) total += copy.streams_[static_cast<std::size_t>(i)].rate;
    return total * 8;
  }
  /// The fewest streams whose steady throughput reaches `fraction` of capacity; 0 if none.
  int FewestFilling(double fraction) const {
    for (int n = 1; n <= static_cast<int>(streams_.size()); ++n) {
      if (SteadyThroughput(n) >= fraction * p_.capacity_bps) return n;
    }
    return 0;
  }

 private:
  static constexpr double kRampStart = 0.02;
  static constexpr double kInf = std::numeric_limits<double>::infinity();

  struct Stream {
    double ramp = kRampStart;  ///< share of its steady demand a stream has reached
    double boost = 1;          ///< overshoot left: 1 = at the link rate, 0 = at its limit
    double wobble = 0;         ///< log of its sawtooth factor
    double rate = 0;           ///< bytes/s
    std::uint64_t bytes = 0;
    std::uint32_t rtt_us = 0;
    std::uint32_t min_rtt_us = 0;
    double retrans_f = 0;
    double delivery = 0;
  };

  double Capacity() const { return p_.capacity_bps / 8; }

  /// A stream's steady demand at RTT `rtt`, bytes/s; infinite when elastic.
  double Cap(double rtt) const {
    double cap = kInf;
    if (!p_.bbr && p_.loss > 0) cap = p_.cc_gain * 1.22 * kMss / (rtt * std::sqrt(p_.loss));
    if (p_.window_bytes > 0) cap = std::min(cap, p_.window_bytes / rtt);
    return cap;
  }
  /// Demands of our active streams at queue `q`, elastic ones standing in at the link rate
  /// (times their ramp) so that a fresh stream cannot take everything at once.
  std::vector<double> OurDemands(double q) const {
    std::vector<double> d;
    double total = 0;
    for (int i = 0; i < active_; ++i) {
      const Stream& s = streams_[static_cast<std::size_t>(i)];
      double cap = std::min(Cap(p_.base_rtt_s + q), Capacity());
      // Cubic retreats by a factor per loss, so the overshoot shrinks geometrically.
      if (cap > 0) cap *= std::pow(Capacity() / cap, s.boost);
      cap *= std::exp(s.wobble);
      const double want = s.ramp * cap;
      d.push_back(want);
      total += want;
    }
    if (pace_ > 0 && total > pace_) {
      for (double& x : d) x *= pace_ / total;
    }
    return d;
  }
  double Sum(const std::vector<double>& v) const {
    double s = 0;
    for (double x : v) s += x;
    return s;
  }

  /// Sets the queue and every active stream's rate.
  void Solve() {
    const double c = Capacity();
    const double q_max = p_.buffer_s;
    const bool ours_elastic_lossy = !p_.bbr && p_.loss == 0 && p_.window_bytes == 0;
    const double cross_demand = cross_rate_ + cross_elastic_ * c;
    const double ours_at_zero = Sum(OurDemands(0));
    if (ours_at_zero + cross_demand <= c) {
      queue_s_ = 0;
    } else if (cross_elastic_ > 0 || (ours_elastic_lossy && active_ > 0 && pace_ == 0)) {
      queue_s_ = kFill * q_max;  // loss-based elastic flows keep the buffer nearly full
    } else if (p_.bbr && pace_ == 0 && active_ > 0) {
      queue_s_ = 0;  // bbr paces at the bottleneck rate
    } else if (Sum(OurDemands(q_max)) + cross_demand > c) {
      queue_s_ = q_max;
    } else {
      double lo = 0, hi = q_max;
      for (int i = 0; i < 50; ++i) {
        const double mid = (lo + hi) / 2;
        (Sum(OurDemands(mid)) + cross_demand > c ? lo : hi) = mid;
      }
      queue_s_ = hi;
    }
    // Max-min fair shares of C among our streams and the cross flows.
    std::vector<double> demand = OurDemands(queue_s_);
    const std::size_t ours = demand.size();
    for (int i = 0; i < cross_elastic_; ++i) demand.push_back(c);
    if (cross_rate_ > 0) demand.push_back(cross_rate_);
    std::vector<std::size_t> order(demand.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return demand[a] < demand[b]; });
    std::vector<double> share(demand.size(), 0);
    double left = c;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const double fair = left / static_cast<double>(order.size() - k);
      share[order[k]] = std::min(demand[order[k]], fair);
      left -= share[order[k]];
    }
    for (std::size_t i = 0; i < ours; ++i) streams_[i].rate = share[i];
  }

  PathParams p_;
  std::mt19937 rng_;
  std::vector<Stream> streams_;
  int active_ = 0;
  int cross_elastic_ = 0;
  double cross_rate_ = 0;  ///< bytes/s
  double pace_ = 0;
  double queue_s_ = 0;
  double delivered_ = 0;  ///< bytes/s, last step
};

}  // namespace braid::sim
