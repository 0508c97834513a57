#pragma once
/// Decides when a copy has stalled: the sink's count of bytes and files did
/// not move for the stall timeout during the data phase (from SourceStart until
/// both ends are Done). Only the sink's counts are progress: a source keeps
/// "sending" into socket buffers (megabytes per stream) after its sink stopped.
/// Any message from an end only shows that end is alive, for the message.
/// Before that phase a long listing or the sink's check of kept blocks is
/// legitimately quiet, so the clock starts only when the data streams do.
/// Pure: the agent passes the time in, so tests drive it with a fake clock.

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace braid {

class StallWatch {
 public:
  using Clock = std::chrono::steady_clock;
  /// How long an end may send nothing before it counts as silent: several
  /// Progress periods (200 ms), so one late report is not blamed.
  static constexpr Clock::duration kSilentAfter = std::chrono::seconds(1);

  /// `names`: how to call the source and the sink in the message, e.g.
  /// "the sink on dtn" or "the local source". `source_may_pause`: the source
  /// may be busy for long without sending (a pipe whose producer is quiet, or
  /// hashing kept blocks for -e), so only an end that stops reporting is a
  /// stall, not a quiet data path.
  StallWatch(Clock::duration timeout, Clock::time_point now, std::array<std::string, 2> names,
             bool source_may_pause = false);

  /// Any control message from an end (0 source, 1 sink): that end is alive.
  void OnMessage(int end, Clock::time_point now);
  /// Progress counts from an end; a change in the sink's is progress.
  void OnProgress(int end, std::uint64_t bytes, std::uint64_t files, Clock::time_point now);
  /// The end has sent Done: its silence from now on is expected.
  void OnDone(int end);

  /// True when `end` has sent nothing for kSilentAfter (and is not done).
  bool Silent(int end, Clock::time_point now) const;
  /// nullopt while something moved within the timeout; else a one-line
  /// explanation naming the end that stopped reporting and for how long.
  std::optional<std::string> Check(Clock::time_point now) const;

 private:
  // No lock: only the agent's own thread uses a StallWatch (agent/agent.cc);
  // the ends' reader threads reach the agent through its event queue only.
  struct EndState {
    Clock::time_point last_message;
    std::uint64_t bytes = 0;
    std::uint64_t files = 0;
    bool done = false;
  };

  Clock::duration timeout_;
  Clock::time_point last_progress_;
  std::array<EndState, 2> ends_;
  std::array<std::string, 2> names_;
  bool source_may_pause_;
};

}  // namespace braid
