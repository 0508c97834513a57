#pragma once
/// What a copy to many destinations shows (agent/star_copy): the progress
/// line over every destination, the exit status of the whole, one line per
/// failed destination, and the --json document. Pure: the caller passes the
/// numbers, so every format is unit-testable.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/error.h"

namespace braid {

/// One destination as the star sees it at a moment.
struct DestinationStatus {
  std::string name;                    ///< as the user named it: host:path or a local path
  std::uint64_t moved = 0;             ///< bytes that arrived there, over every attempt
  std::uint64_t have = 0;              ///< of `total`: kept from earlier runs plus arrived
  std::uint64_t skipped = 0;           ///< not sent: an earlier run (or a file in place) had it
  std::optional<std::uint64_t> total;  ///< the source's bytes; unknown until planned, or a pipe
  double rate_Bps = 0;                 ///< the current rate
  double seconds = 0;                  ///< its data phases so far
  double predicted_Bps = 0;            ///< the layout's model's rate for it; 0 not known
  int retries = 0;
  /// A chain or tree: the destination its latest attempt took its data from; "" the sources.
  std::string from;
  bool finished = false;
  int exit_code = 0;  ///< once finished
  ErrorCode error_code = ErrorCode::kOk;
  std::string error;  ///< once finished, when it failed
  bool failed() const { return finished && exit_code != 0; }
};

/// "2/3 destinations done; slowest dtn2:/data 42% 12.3 MiB/s; fastest
/// dtn1:/data 80% 20.1 MiB/s; elapsed 00:05" (one line, no "braid: "). Slowest
/// and fastest are of those still running, by the share of their total they
/// hold (by bytes when a total is unknown); a lone one is only the slowest.
/// Failed destinations are counted ("1 failed") but not among the running.
std::string FormatStarProgress(const std::vector<DestinationStatus>& destinations,
                               double elapsed_s);

/// The status of the whole once every destination finished: 0 when all are
/// complete; the one status they share when all ended alike (each failed the
/// same way, or each left out the same unreadable sources: 23); otherwise
/// kDestinationsFailed's (16), some failed and the rest are in place.
ErrorCode StarErrorCode(const std::vector<DestinationStatus>& destinations);
int StarExitCode(const std::vector<DestinationStatus>& destinations);

/// "DEST failed: CAUSE (exit N)": a failed destination's line (no "braid: ").
std::string StarFailureLine(const DestinationStatus& destination);

/// The last line when some failed: "1 of 3 destinations failed (named
/// above); the other 2 are complete; run the same command again to complete
/// them" (no "braid: ").
std::string StarSummaryLine(const std::vector<DestinationStatus>& destinations);

/// --json for a copy to many, newline-terminated:
/// {"start": {...}, "destinations": [...], "end": {...}[, "error": "..."]}.
std::string FormatStarJson(const std::vector<DestinationStatus>& destinations,
                           const std::string& topology, double seconds);

}  // namespace braid
