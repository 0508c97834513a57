#pragma once
/// Shows transfer progress on stderr: a line every -P seconds, or a live bar
/// when stderr is a terminal and -P was not given; silent otherwise.

#include <cstdint>
#include <optional>
#include <string>

#include "agent/report/progress_format.h"

namespace braid {

class ProgressDisplay {
 public:
  /// `interval_s` > 0: -P lines; 0: a bar if stderr is a TTY. Times passed in
  /// later are seconds since the data started: the display's averages start
  /// there, at 0 bytes, as the summary's do.
  ProgressDisplay(double interval_s, std::optional<std::uint64_t> total, std::uint64_t files);
  /// As `interval_s`: show nothing, even on a terminal.
  static constexpr double kSilent = -1;
  /// Called often (every ~100 ms) with what is done so far and the file the
  /// source is reading ("" if none).
  void Update(double now_s, std::uint64_t bytes, std::uint64_t files_done,
              const std::string& current_file);
  /// Shows the final state (a full bar, or a last -P line) and leaves the
  /// cursor on a new line.
  void Complete(double now_s, std::uint64_t bytes, std::uint64_t files_done);
  /// Leaves the cursor on a new line if a bar was drawn (on failure).
  void Finish();
  bool active() const { return mode_ != Mode::kSilent; }

 private:
  // No lock: only the agent's own thread uses a ProgressDisplay (agent/agent.cc);
  // the ends' reader threads reach the agent through its event queue only.
  enum class Mode { kSilent, kLines, kBar } mode_;
  double interval_s_;
  std::optional<std::uint64_t> total_;
  std::uint64_t files_;
  RateMeter meter_;
  double next_s_ = 0;
  bool drawn_ = false;
};

}  // namespace braid
