#include "autostreams/stream_controller.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <utility>

#include "autostreams/stream_ledger.h"

namespace braid {
namespace {

constexpr int kSlots = kMaxStreams;
/// Time constants of the smoothed RTT and rate: a few of the caller's periods.
constexpr double kRttTau = 0.5;
constexpr double kRateTau = 1.0;
/// Upper bounds on settle and measure times, so one absurd RTT sample cannot stall the search.
constexpr double kMaxSettle = 10;
constexpr double kMaxMeasure = 20;

/// How close to linear a step from `from` to `to` streams scaled: 1 = each new stream
/// added what each old one gave.
double Efficiency(int from, int to, double gain) { return gain * from / std::max(1, to - from); }
/// Above this efficiency the climb leaps (x4), above the next it doubles.
constexpr double kLeapAt = 0.8;
constexpr double kDoubleAt = 0.5;
/// A source whose reader waited for its input this share of an interval or
/// more was bounded by that input, not by its streams.
constexpr double kInputBound = 0.1;

/// The step of a down-probe or of a careful climb: a quarter, at least one stream.
int StepOf(int n) { return std::max(1, n / 4); }

/// r / base - 1, finite for any input: from (almost) nothing, any rate counts as +1000%.
double Gain(double r, double base) {
  if (!(base > 1.0)) return r > 1.0 ? 10.0 : 0.0;
  const double g = r / base - 1;
  return std::isfinite(g) ? g : 0.0;
}

std::string Percent(double fraction) {
  const long p = std::lround(fraction * 100);
  return (p >= 0 ? "+" : "") + std::to_string(p) + "%";
}
std::string Ms(double us) { return std::to_string(std::lround(us / 1000)) + " ms"; }
std::string Mbit(double bytes_per_s) {
  return std::to_string(std::lround(bytes_per_s * 8 / 1e6)) + " Mbit/s";
}
std::string Arrow(int from, int to) { return std::to_string(from) + "->" + std::to_string(to); }

/// Minimum over a sliding time window, kept in a few buckets so memory stays bounded.
class WindowedMin {
 public:
  void Add(double t, double v, double window) {
    const double width = window / 8;
    if (buckets_.empty() || t >= buckets_.back().first + width) {
      buckets_.emplace_back(t, v);
    } else {
      buckets_.back().second = std::min(buckets_.back().second, v);
    }
    while (buckets_.size() > 1 && buckets_.front().first + width < t - window) {
      buckets_.pop_front();
    }
  }
  /// 0 when nothing was seen.
  double Get() const {
    double m = 0;
    for (const auto& [t, v] : buckets_) m = (m == 0) ? v : std::min(m, v);
    return m;
  }

 private:
  std::deque<std::pair<double, double>> buckets_;  ///< (start time, minimum)
};

enum class Phase { kBaseline, kLeap, kProbeUp, kConfirm, kProbeDown, kHold };

}  // namespace

/// The controller is pure and single-threaded: its owner (the serving end's
/// progress callback, Steer in src/serve/server.cc) calls Update and Current
/// from one thread, so no field is shared.
struct StreamController::Impl {
  StreamControllerConfig::Tuning t;
  int min = 1;
  int max = kSlots;
  bool polite = false;
  bool loss_based = true;

  // Inputs as of the previous call.
  bool started = false;
  Clock::time_point last{};
  StreamLedger ledger;
  double clock_s = 0;    ///< sum of the intervals taken as valid
  double rate_ewma = 0;  ///< bytes/s, smoothed over ~1 s
  double srtt_us = 0;    ///< smoothed over ~0.5 s
  WindowedMin floor_us;  ///< the path's RTT without our queue

  // The search.
  Phase phase = Phase::kBaseline;
  int current = 1;          ///< the decision
  int ceiling = kSlots;     ///< most streams the engine has been seen to run
  int base = 1;             ///< the last count judged worth it
  double base_rate = 0;     ///< its throughput, bytes/s
  double ref_rate = 0;      ///< the rate a series of down-probes started from
  int hi = 0;               ///< smallest count above `base` that did not pay; 0 = none yet
  double since_change = 0;  ///< time at the current count
  double window_s = 0;      ///< measuring: time and bytes so far, fewest active streams
  double window_bytes = 0;
  int window_active = kSlots;
  double window_rtt = 0;    ///< integral of srtt_us over the window
  int probe_count = 0;      ///< confirming: the up-probe that looked as if it did not pay
  double probe_rate = 0;    ///< and what it measured
  double probe_steady = 0;  ///< and what its streams will settle to, as far as it showed
  int alarm_sign = 0;       ///< holding: sign of the last window's alarming swing; 0 = none
  int held = 0;             ///< count of the last hold
  double hold_s = 0;        ///< time in the current hold
  double hold_len = 0;      ///< how long this hold lasts
  double hold_ref = 0;      ///< throughput when the hold began; 0 = not measured yet
  bool queued = false;      ///< the last window's RTT showed a queue at the bottleneck
  bool reprobe = false;     ///< the current probe left a hold: if it fails, go back, no search
  bool next_up = true;      ///< direction of the next re-probe: first up, in case a burst hid room
  bool opening = true;      ///< no hold yet: the first climb is on, so the opening may leap

  // Polite mode.
  double inflated_s = 0;  ///< how long the RTT has been above the threshold, or
  double normal_s = 0;    ///< below it
  double cooldown_s = 0;  ///< no polite action until the last one has taken effect
  double pace = 0;        ///< bytes/s; 0 = none
  double unpaced = 0;     ///< the rate at the minimum count before pacing began

  std::string reason;
  bool news = false;

  explicit Impl(const StreamControllerConfig& c)
      : t(c.tuning),
        min(std::clamp(c.min_streams, 1, kSlots)),
        max(std::clamp(c.max_streams, min, kSlots)),
        polite(c.polite),
        loss_based(c.loss_based) {
    current = std::clamp(t.start_streams, min, max);
    base = current;
    ceiling = max;
    hold_len = t.hold_min_s;
    reason = min == max ? "fixed at " + std::to_string(min)
                        : "start at " + std::to_string(current) + " (auto " + std::to_string(min) +
                              "-" + std::to_string(max) + ")";
  }

  StreamDecision Decision() const {
    StreamDecision d;
    d.streams = current;
    d.pace_Bps = pace > 0 ? static_cast<std::uint64_t>(pace) : 0;
    d.news = news;
    d.reason = reason;
    return d;
  }

  void Say(std::string text) {
    reason = std::move(text);
    news = true;
  }

  /// The path's RTT without a queue: a queue that bursts of new streams build lengthens the
  /// RTT for a while, and timing the search by it would slow the search just when it starts.
  double RttS() const {
    const double floor = floor_us.Get();
    return (floor > 0 ? floor : srtt_us) / 1e6;
  }
  /// After a change: long enough for new streams to leave slow start and parked ones to drain.
  double Settle() const {
    if (phase == Phase::kLeap) return std::max(t.leap_settle_s, t.leap_settle_rtts * RttS());
    return std::min(kMaxSettle, std::max(t.settle_s, t.settle_rtts * RttS()));
  }
  /// Long enough to average out a few sawteeth of every stream.
  double Measure() const {
    const double m = phase == Phase::kLeap
                         ? std::max(t.leap_measure_s, t.leap_measure_rtts * RttS())
                         : std::max(t.measure_s, t.measure_rtts * RttS());
    return std::min(kMaxMeasure, m);
  }
  /// The most streams worth trying now. Polite mode climbs into no queue, not even one it
  /// has not yet acted on.
  int MaxNow() const { return (polite && inflated_s > 0) ? current : std::min(max, ceiling); }
  /// Whether an RTT of `rtt_us` says that a queue is building at the bottleneck.
  bool QueueAbove(double rtt_us) const {
    const double floor = floor_us.Get();
    if (floor <= 0 || rtt_us <= 0) return false;
    const double threshold_us =
        std::max(t.min_queue_ms * 1000, std::min(floor * (t.rtt_ratio - 1), t.max_queue_ms * 1000));
    return rtt_us - floor > threshold_us;
  }
  /// An increase from `from` to `to` must raise throughput by this fraction to count.
  double Need(int from, int to) const {
    return std::max(t.step_gain, t.doubling_gain * (to - from) / std::max(1, from));
  }

  void ResetWindow() {
    window_s = 0;
    window_bytes = 0;
    window_active = kSlots;
    window_rtt = 0;
    ledger.DiscardWindow();
  }
  void SetCount(int n) {
    n = std::clamp(n, min, max);
    if (n != current) since_change = 0;
    current = n;
    ResetWindow();
  }

  void Observe(double dt, const StreamLedger::Interval& iv, int active, double input_wait_s) {
    clock_s += dt;
    const double rate = iv.bytes / dt;
    const double rate_a = 1 - std::exp(-dt / kRateTau);
    rate_ewma = rate_ewma > 0 ? rate_ewma + rate_a * (rate - rate_ewma) : rate;
    if (iv.rtt_us > 0) {
      const double a = 1 - std::exp(-dt / kRttTau);
      srtt_us = srtt_us > 0 ? srtt_us + a * (iv.rtt_us - srtt_us) : iv.rtt_us;
    }
    if (iv.floor_us > 0) floor_us.Add(clock_s, iv.floor_us, t.floor_window_s);
    ledger.Age(dt, iv);

    // Nothing connected yet (or everything parked): no evidence either way.
    if (active <= 0) return;
    since_change += dt;
    if (phase == Phase::kHold) hold_s += dt;
    if (polite && Polite(dt)) return;
    // More streams cannot send what has not arrived (a hop of a chain waits for
    // the node above): the interval says nothing of the path, and a probe would
    // only reorder blocks that the hops below must then wait for.
    if (input_wait_s >= kInputBound * dt) {
      ResetWindow();
      return;
    }
    if (Leap(iv)) return;
    if (since_change < Settle()) return;
    window_s += dt;
    window_bytes += iv.bytes;
    window_active = std::min(window_active, active);
    window_rtt += srtt_us * dt;
    ledger.AddToWindow(iv);
    if (window_s < Measure()) return;
    const double r = window_bytes / window_s;
    const int honored = std::min(current, window_active);
    // Streams that have sent for two windows' time are past their slow-start burst.
    const double steady = ledger.CloseWindow(r, window_s, honored, 2 * (Settle() + Measure()));
    queued = QueueAbove(window_rtt / window_s);
    ResetWindow();
    Judge(r, honored, steady);
  }

  void Judge(double r, int honored, double steady) {
    if (min == max) return;  // nothing to decide
    switch (phase) {
      case Phase::kBaseline:
        base = current;
        base_rate = r;
        hi = 0;
        Say("baseline " + std::to_string(current) + ": " + Mbit(r));
        reprobe = false;
        if (current < MaxNow()) {
          StartUp(std::min(2 * current, MaxNow()));
        } else {
          EnterHold(current, r);
        }
        return;
      case Phase::kLeap:
        return JudgeLeap(r, honored);
      case Phase::kProbeUp:
        return JudgeUp(r, honored, steady);
      case Phase::kConfirm:
        return JudgeConfirm(steady);
      case Phase::kProbeDown:
        return JudgeDown(r);
      case Phase::kHold:
        return JudgeHold(r);
    }
  }

  /// The opening: during the first climb, a retransmission from a stream of a
  /// loss-based congestion control while the RTT shows no queue means random loss, not a
  /// full link, so every stream is capped below the link rate and many will pay. Going
  /// there at once saves the climb's windows, which a copy of seconds cannot afford.
  bool Leap(const StreamLedger::Interval& iv) {
    if (!opening || polite || !loss_based || hi > 0) return false;
    if (phase != Phase::kBaseline && phase != Phase::kProbeUp && phase != Phase::kConfirm) {
      return false;
    }
    if (!(iv.retrans > 0) || RttS() * 1e3 < t.leap_min_rtt_ms) return false;
    const double look = std::max(t.look_s, t.look_rtts * RttS());
    const int target = std::min(std::clamp(t.leap_streams, min, max), MaxNow());
    if (since_change < look || target <= current) return false;
    // The streams' own RTT now (the kernel's srtt follows within a few RTTs), not the
    // controller's 0.5 s average, which stays high for a second after a slow-start
    // overflow has drained while the random losses that follow already count.
    if (QueueAbove(iv.rtt_us > 0 ? iv.rtt_us : srtt_us)) return false;
    opening = false;
    Say("loss without a queue (" + std::to_string(std::lround(iv.retrans)) +
        " retransmitted, rtt " + Ms(srtt_us) + "): " + Arrow(current, target));
    phase = Phase::kLeap;
    SetCount(target);
    return true;
  }

  /// After the leap: a queue says the link is full, so hold there (the hold's re-probes
  /// look for fewer); none says there is room, so climb on as from a baseline.
  void JudgeLeap(double r, int honored) {
    base = std::min(current, honored);
    base_rate = r;
    hi = 0;
    reprobe = false;
    if (honored < current) ceiling = std::max(min, honored);
    if (queued || base >= MaxNow()) {
      Say("hold at " + std::to_string(base) + ": " + Mbit(r) +
          (queued ? ", the link is full" : ", the most allowed"));
      return EnterHold(base, r);
    }
    Say("leap to " + std::to_string(base) + ": " + Mbit(r) + ", no queue");
    StartUp(std::min(2 * base, MaxNow()));
  }

  void StartUp(int target) {
    phase = Phase::kProbeUp;
    SetCount(target);
  }
  void StartDown(int target) {
    phase = Phase::kProbeDown;
    SetCount(target);
  }
  /// A hold that ends at the count it started from doubles; any other starts short.
  /// `rate` is what this count was last measured to give (0 = not known), so that a path
  /// that changed while a probe was out shows up in the hold's first window.
  void EnterHold(int n, double rate) {
    opening = false;
    SetCount(n);
    phase = Phase::kHold;
    hold_len = (current == held) ? std::min(t.hold_max_s, 2 * hold_len) : t.hold_min_s;
    held = current;
    hold_s = 0;
    hold_ref = rate;
    hi = 0;
    alarm_sign = 0;
  }

  void JudgeUp(double r, int honored, double steady) {
    const int from = base;
    int to = current;
    if (honored < to) {
      // The engine could not run them all: judge what it ran, and ask no higher for now.
      ceiling = std::max(min, honored);
      if (honored <= from) {
        Say("probe " + Arrow(from, to) + ": only " + std::to_string(honored) +
            " streams run, hold at " + std::to_string(from));
        return EnterHold(from, base_rate);
      }
      to = honored;
    }
    const double gain = Gain(r, base_rate);
    const double need = Need(from, to);
    const bool paid = gain >= need;
    // While no queue builds, the link has room and the streams are limited by loss or
    // window, so a step that paid on the first climb goes on up at once, however well it
    // seemed to scale: measuring `from` again would cost as long as the next step. Once a
    // queue shows the link is full, or on a re-probe from a hold, it must scale well.
    if (paid && (hi > 0 || (!reprobe && !queued) || Efficiency(from, to, gain) >= kDoubleAt)) {
      Say("probe " + Arrow(from, to) + ": " + Percent(gain) + " throughput");
      return Accept(from, to, gain, steady, false);
    }
    if (hi == 0) {
      // The rate `from` gave was measured before the probe, and on a lossy path it may have
      // been a slow-start burst or the top of a sawtooth since gone: measure it again before
      // concluding that more streams do not pay, or pay less than they could.
      probe_count = to;
      probe_rate = r;
      probe_steady = steady;
      phase = Phase::kConfirm;
      Say("probe " + Arrow(from, to) + ": " + Percent(gain) +
          (paid ? " throughput, less than linear" : " < " + Percent(need)) + ", measure " +
          std::to_string(from) + " again");
      return SetCount(from);
    }
    Reject(from, to, gain, need);
  }

  /// Back at `base` after an up-probe that seemed not to pay: judge the probe against now.
  /// `settled`: what `from` gives once its young streams have left their burst, which is
  /// what the probe is judged against.
  void JudgeConfirm(double settled) {
    const int from = current;
    const int to = probe_count;
    base_rate = settled;
    const double gain = Gain(probe_rate, settled);
    const double need = Need(from, to);
    if (gain >= need) {
      Say(std::to_string(from) + " again: " + Mbit(settled) + ", so " + Arrow(from, to) + " gave " +
          Percent(gain));
      // `to` streams give no more than `to` times what each of `from` gave.
      return Accept(from, to, gain, std::min(probe_steady, settled / from * to), true);
    }
    Reject(from, to, gain, need);
  }

  /// `to` streams paid for themselves: climb on, doubling while the step scaled well.
  /// `judged_twice`: `from` was measured again, so the scaling is known, not guessed from a
  /// rate that may have been a burst.
  void Accept(int from, int to, double gain, double rate, bool judged_twice) {
    // How close to linear the step scaled: all but linear, the streams are limited by loss
    // or window and many more will pay, so go four times as high (a path that needs 64
    // streams is reached in three steps); near linear, or not known, double; well short,
    // go carefully.
    const double efficiency = Efficiency(from, to, gain);
    reprobe = false;  // the path changed: search again, bisecting if need be
    base = to;
    base_rate = rate;
    int next = efficiency >= kLeapAt                      ? 4 * to
               : efficiency >= kDoubleAt || !judged_twice ? 2 * to
                                                          : to + StepOf(to);
    if (polite) next = std::min(next, 2 * to);  // a leap would overshoot into a queue
    if (hi > 0) next = hi - to > StepOf(to) ? to + (hi - to) / 2 : to;
    next = std::min(next, MaxNow());
    if (next <= to) return EnterHold(to, rate);
    StartUp(next);
  }

  /// `to` streams did not pay: bisect towards `from`, or hold there.
  void Reject(int from, int to, double gain, double need) {
    hi = hi > 0 ? std::min(hi, to) : to;
    if (!reprobe && hi - from > StepOf(from)) {
      const int mid = from + (hi - from) / 2;
      Say("probe " + Arrow(from, to) + ": " + Percent(gain) + " < " + Percent(need) + ", try " +
          std::to_string(mid));
      return StartUp(mid);
    }
    Say("hold at " + std::to_string(from) + ": " + std::to_string(to) + " gave " + Percent(gain));
    EnterHold(from, base_rate);
  }

  void JudgeDown(double r) {
    const int from = base;
    const int to = current;
    const double change = Gain(r, ref_rate);
    if (-change <= t.drop_tolerance) {
      base = to;
      base_rate = r;
      Say("probe " + Arrow(from, to) + ": " + Percent(change) + " throughput, fewer suffice");
      if (to > min) return StartDown(std::max(min, to - StepOf(to)));
      return EnterHold(to, r);
    }
    Say("hold at " + std::to_string(from) + ": " + std::to_string(to) + " gave " + Percent(change));
    EnterHold(from, base_rate);
  }

  void JudgeHold(double r) {
    base = current;
    base_rate = r;
    if (hold_ref <= 0) {
      hold_ref = r;
      return;
    }
    const double swing = Gain(r, hold_ref);
    if (std::fabs(swing) > t.change_alarm) {
      // One window is one sawtooth on a lossy path: act on two in a row that agree.
      const int sign = swing < 0 ? -1 : 1;
      if (alarm_sign != sign) {
        alarm_sign = sign;
        return;
      }
      // More than expected at the most streams allowed: new streams settling slower than
      // estimated, or the path freed up. Neither says fewer would do; the hold's own
      // re-probe will test that.
      if (sign > 0 && current >= MaxNow()) {
        hold_ref = r;
      } else {
        Say("throughput at " + std::to_string(current) + " " + Percent(swing) + ", re-probe");
        return ReProbe(swing < 0);
      }
    }
    alarm_sign = 0;
    if (hold_s >= hold_len) ReProbe(next_up);
  }

  /// One step up or down from the held count; alternates so both directions get tested.
  void ReProbe(bool up_first) {
    ceiling = max;  // the engine may have connected more streams since
    hi = 0;
    const bool can_up = current < MaxNow();
    const bool can_down = current > min;
    if (!can_up && !can_down) {
      hold_s = 0;
      return;
    }
    const bool up = can_up && (up_first || !can_down);
    next_up = !up;
    // Up by half: on a loss-limited path that is worth +50%, well clear of a sawtooth's
    // noise, where one more of many streams would not be. Polite mode creeps up instead:
    // the queue a leap builds costs others more than its noise costs us.
    const int step = polite ? StepOf(current) : std::max(1, current / 2);
    if (up) {
      reprobe = true;
      return StartUp(std::min(MaxNow(), current + step));
    }
    ref_rate = base_rate;
    StartDown(std::max(min, current - StepOf(current)));
  }

  /// Polite mode: yields while the RTT shows a queue. True when it acted, or while pacing
  /// (no probing then: the count is already at its minimum).
  bool Polite(double dt) {
    const double floor = floor_us.Get();
    if (floor <= 0 || srtt_us <= 0) return pace > 0;
    const bool inflated = QueueAbove(srtt_us);
    inflated_s = inflated ? inflated_s + dt : 0;
    normal_s = inflated ? 0 : normal_s + dt;
    cooldown_s = std::max(0.0, cooldown_s - dt);
    if (cooldown_s > 0) return pace > 0;

    const std::string rtt = "rtt " + Ms(srtt_us) + ", floor " + Ms(floor);
    if (inflated && inflated_s >= t.rtt_sustain_s) {
      inflated_s = 0;
      // Give the queue time to drain before judging again.
      cooldown_s = Settle() + t.rtt_sustain_s;
      if (current > min) {
        // A probe that raised the RTT goes back to where it came from; otherwise halve.
        const bool probing = phase == Phase::kProbeUp && base < current;
        const int to = probing ? base : std::max(min, current / 2);
        Say("polite: " + rtt + ", " + Arrow(current, to));
        EnterHold(to, probing ? base_rate : 0);
        next_up = !probing;
        return true;
      }
      if (pace <= 0) unpaced = rate_ewma;
      const double cut = std::max(unpaced * t.pace_floor, (pace > 0 ? pace : unpaced) * t.pace_cut);
      if (cut < pace || pace <= 0) {
        pace = cut;
        Say("polite: " + rtt + ", at " + std::to_string(current) + ", pace " + Mbit(pace));
      }
      return true;
    }
    if (!inflated && pace > 0 && normal_s >= t.rtt_sustain_s) {
      normal_s = 0;
      pace *= t.pace_raise;
      if (pace < unpaced) {
        Say("polite: " + rtt + ", pace " + Mbit(pace));
        return true;
      }
      pace = 0;
      Say("polite: " + rtt + ", pacing off");
      // Measure the unpaced rate afresh, then climb as at the start.
      phase = Phase::kBaseline;
      SetCount(current);
      since_change = 0;
      return true;
    }
    return pace > 0;
  }
};

StreamController::StreamController(const StreamControllerConfig& config)
    : impl_(std::make_unique<Impl>(config)) {}

StreamController::~StreamController() = default;

StreamDecision StreamController::Update(Clock::time_point now,
                                        std::span<const StreamSample> samples, int active,
                                        double input_wait_s) {
  Impl& s = *impl_;
  s.news = false;
  const StreamLedger::Interval iv = s.ledger.Absorb(samples);
  if (!s.started) {
    s.started = true;
    s.last = now;
    s.news = true;
    return s.Decision();
  }
  const double dt = std::chrono::duration<double>(now - s.last).count();
  s.last = now;
  // A step back or a long silence (suspend, a stalled caller): the byte deltas cannot be
  // turned into a rate, so skip this interval; Absorb has already re-based the counts.
  if (!(dt > 0) || dt > s.t.max_gap_s) return s.Decision();
  s.Observe(dt, iv, std::clamp(active, 0, kSlots), input_wait_s);
  return s.Decision();
}

StreamDecision StreamController::Current() const {
  StreamDecision d = impl_->Decision();
  d.news = false;
  return d;
}

}  // namespace braid
