#pragma once
/// Progress text for -P lines and the live terminal bar. Pure: no IO, no clocks; callers
/// pass in the numbers, so every format is unit-testable.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace braid {

struct ProgressSnapshot {
  std::uint64_t bytes_done = 0;
  std::optional<std::uint64_t> bytes_total;  ///< unknown for stdin and devices without --size
  double elapsed_s = 0;
  double current_rate_Bps = 0;  ///< bytes per second over the last few seconds
  double average_rate_Bps = 0;  ///< bytes per second since the start
  std::uint64_t files_done = 0;
  std::uint64_t files_total = 0;  ///< up to 1: no file count is shown
  std::string current_file;       ///< the file being read, as the source lists it; "" for none
};

/// One log line for -P, e.g. "braid:  42% 1.23 GiB of 2.00 GiB  3/10 files  cur 812.4 MiB/s
/// avg 790.1 MiB/s  elapsed 00:00:02  ETA 00:00:03" (one line). With an unknown total there
/// is no percentage, total or ETA; with one file, no file count.
std::string FormatProgressLine(const ProgressSnapshot& snapshot);

/// A bar for a terminal, exactly `terminal_width` columns so that "\r" + bar overwrites the
/// previous one: "[===>   ]  42% 1.23/2.92 GiB  812 MiB/s  ETA 00:03  3/10 files  dir/name".
/// Narrow terminals drop the current file, the file count, the ETA, the rate, the byte
/// count, then the bar; a long name keeps its end ("...ir/name"). An unknown total shows a
/// bouncing marker and the elapsed time instead of an ETA. The name is shown as
/// VisibleText makes it. Widths <= 0 give ""; widths above 4096 are treated as 4096.
std::string FormatProgressBar(const ProgressSnapshot& snapshot, int terminal_width);

/// Seconds until `left` bytes are done at `rate_Bps`, rounded up (a copy 0.4 s from its end
/// is not done); 0 when nothing is left, -1 when the rate is not known.
double EtaSeconds(std::uint64_t left, double rate_Bps);

/// A count and its noun, singular for exactly one: "1 file", "0 files", "3 streams";
/// `plural` for nouns that do not just add an s ("1 retry", "2 retries").
std::string CountOf(std::uint64_t n, std::string_view singular, std::string_view plural = {});

/// Binary units, two decimals: "512 B", "1.23 GiB", "16.00 EiB".
std::string FormatBytes(std::uint64_t bytes);

/// Binary units as FormatBytes, so sizes and rates on a line are of one family:
/// "812.4 MiB/s", "512 B/s". Negative and non-finite rates (no time has passed yet) print as
/// "0 B/s", absurd ones as ">999 EiB/s".
std::string FormatRate(double bytes_per_second);

/// "00:03" under an hour, "01:02:03" from an hour on (whole seconds, rounded down);
/// "--:--" for negative, non-finite or absurd (100000 hours or more) values.
std::string FormatDuration(double seconds);

/// Measures throughput from (time, total bytes) samples. Pure: the caller supplies the clock,
/// so tests can use made-up times.
class RateMeter {
 public:
  /// `window_s` is the smoothing window of CurrentRate(); non-positive values mean 2 s.
  explicit RateMeter(double window_s = 2.0);

  /// Records that `total_bytes` had been moved by `time_s`. The first sample is the start.
  /// Feed it on every tick, also when nothing moved, so a stall shows as a falling rate.
  /// Samples earlier than the newest one, with fewer bytes, or non-finite are ignored.
  void Add(double time_s, std::uint64_t total_bytes);

  /// Bytes per second over roughly the last window; 0 until two samples are apart in time.
  double CurrentRate() const;
  /// Bytes per second since the first sample; 0 until time has passed.
  double AverageRate() const;
  /// Seconds from the first sample to the newest.
  double ElapsedSeconds() const;
  /// Bytes from the first sample to the newest.
  std::uint64_t BytesSinceStart() const;

 private:
  // No lock: only the agent's own thread uses a RateMeter (in its ProgressDisplay);
  // the ends' reader threads reach the agent through its event queue only.
  struct Sample {
    double time_s;
    std::uint64_t bytes;
  };

  double window_s_;
  std::optional<Sample> start_;
  /// Newest last. The front is the newest sample at or before the window's start, so the
  /// current rate spans the whole window. Samples are coalesced to at most ~33 per window.
  std::deque<Sample> recent_;
};

}  // namespace braid
