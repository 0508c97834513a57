#pragma once
/// The -s auto stream-count controller: a pure state machine (no IO, no clock, no
/// threads). The caller feeds it the source's per-stream samples a few times a second;
/// it answers how many streams should carry data, with a reason a user can read.
///
/// A copy over a loss-based congestion control that sees loss without a queue in its
/// first second goes straight to many streams (the opening), then searches from there.
/// It searches for the smallest count that gives (nearly) the most throughput: double
/// while each doubling pays, bisect between the last count that paid and the first that
/// did not, hold, and re-probe (a quarter down, half up) now and then so it follows the
/// path. Throughput on a lossy path swings with every stream's sawtooth and new streams
/// burst for seconds, so steps are judged against what the settled streams give, a probe
/// that seems not to pay is judged again against a fresh measurement of the count it
/// left, and a hold reacts to a change only when two windows in a row show it.
/// In polite mode it also yields when the RTT rises well above its floor (a queue is
/// building, so someone is being hurt): it halves the count down to the minimum and then
/// recommends a pacing rate. docs/architecture.md ("The stream controller") describes the defaults.

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "braid/limits.h"
#include "proto/control_message.h"

namespace braid {

struct StreamControllerConfig {
  int min_streams = 1;            ///< never fewer (clamped to 1..kMaxStreams)
  int max_streams = kMaxStreams;  ///< never more (clamped to min..kMaxStreams)
  bool polite = false;            ///< also back off when the RTT rises above its floor
  /// The source's congestion control backs off on loss (cubic, reno): random loss then
  /// caps every stream, and loss seen while no queue builds says that many will pay.
  /// False for bbr, which fills a lossy link with one stream.
  bool loss_based = true;

  /// The search's knobs. The defaults suit paths from LAN to ~300 ms RTT; tests and
  /// experiments may change them, the command line does not.
  struct Tuning {
    int start_streams = 2;         ///< first count tried (clamped to min..max)
    double doubling_gain = 0.10;   ///< an increase of +100% streams must give +10%...
    double step_gain = 0.05;       ///< ...and any increase at least +5%
    double drop_tolerance = 0.03;  ///< a decrease is kept if it costs at most 3%
    double change_alarm = 0.15;    ///< while holding, two windows +-15% off re-probe at once
    double settle_s = 1.0;         ///< ignore this long after a change (min)...
    double settle_rtts = 10;       ///< ...or this many RTTs (the floor), whichever is longer
    double measure_s = 2.0;        ///< then average throughput this long (min)...
    double measure_rtts = 20;      ///< ...or this many RTTs, whichever is longer
    double hold_min_s = 5;         ///< first hold before a re-probe; doubles while the
    double hold_max_s = 60;        ///< re-probes confirm the count, up to this
    double max_gap_s = 5;          ///< a longer silence between calls is a clock jump
    // The opening: loss-based streams that lose packets while the RTT shows no queue are
    // loss-limited, so the copy goes straight to many streams instead of climbing to them.
    int leap_streams = kOpeningStreams;  ///< where the opening goes (clamped to min..max)
    double look_s = 0.3;                 ///< the first streams must have sent this long (min)...
    double look_rtts = 5;                ///< ...or this many RTTs, before a loss counts
    /// No leap below this RTT floor: there a retransmission is more likely a receiver that
    /// fell behind (onto a disk, its socket buffer pruned) than loss on a path, and the
    /// ordinary climb costs a short path little.
    double leap_min_rtt_ms = 5;
    double leap_settle_s = 0.5;  ///< the leap is judged after a shorter settle...
    double leap_settle_rtts = 5;
    double leap_measure_s = 0.5;  ///< ...and window: is there room for more?
    double leap_measure_rtts = 10;
    // Polite mode.
    double rtt_ratio = 1.1;       ///< a queue counts once srtt > floor * ratio,
    double min_queue_ms = 5;      ///< but not below this much queue (LAN jitter),
    double max_queue_ms = 50;     ///< and always above this much (long paths)
    double rtt_sustain_s = 1.0;   ///< for this long, before acting or recovering
    double floor_window_s = 300;  ///< the RTT floor is the minimum over this window
    double pace_cut = 0.5;        ///< at the minimum count, pace to this times the rate
    double pace_floor = 0.10;     ///< never below this share of the unpaced rate
    double pace_raise = 1.5;      ///< once the RTT is back at its floor, lift by this
  };
  Tuning tuning;
};

/// What the controller wants now.
struct StreamDecision {
  int streams = 1;             ///< how many streams should carry data, in [min, max]
  std::uint64_t pace_Bps = 0;  ///< polite only: pace the total to this; 0 = no limit
  bool news = false;           ///< this call made a judgement; print `reason` under -v
  std::string reason;          ///< the latest judgement, e.g. "probe 4->8: +38% throughput"
};

class StreamController {
 public:
  using Clock = std::chrono::steady_clock;

  explicit StreamController(const StreamControllerConfig& config);
  ~StreamController();
  StreamController(const StreamController&) = delete;
  StreamController& operator=(const StreamController&) = delete;

  /// One observation, every ~200 ms (any period from 50 ms to a few seconds works).
  /// `samples`: the latest sample of each connected stream (Progress::stream_samples);
  /// byte counts are cumulative, so streams may come, go or restart between calls.
  /// `active`: how many streams the engine let carry data since the last call: the last
  /// decision's count, or fewer when it could not connect that many.
  /// `now` only has to be monotonic in spirit: a step back or a long gap is skipped.
  /// `input_wait_s`: how long since the last call the source's reader waited for its
  /// input (the node a hop follows); an interval spent so is no evidence, and the
  /// count stays where it is while the input is what bounds the copy.
  StreamDecision Update(Clock::time_point now, std::span<const StreamSample> samples, int active,
                        double input_wait_s = 0);

  /// The current decision, unchanged (news = false).
  StreamDecision Current() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace braid
