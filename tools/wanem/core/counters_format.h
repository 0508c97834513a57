#pragma once
/// The counters as text, printed on exit and on SIGUSR1, and as CSV rows.

#include <string>
#include <string_view>

#include "core/direction.h"

namespace wanem {

/// Multi-line summary of one direction, e.g. "a->b: delivered ...".
/// `elapsed_ns` (since start) gives the mean rate.
std::string FormatCounters(std::string_view label, const DirectionCounters& counters, bool classes,
                           std::int64_t elapsed_ns);

/// The CSV header matching FormatCsvRow.
std::string_view CsvHeader();

/// One row per direction and class for an interval: the delivered bytes and
/// drops since `before`, over `interval_ns`. `unix_time` is the interval's end.
std::string FormatCsvRows(double unix_time, std::string_view label, const DirectionCounters& now,
                          const DirectionCounters& before, std::int64_t interval_ns);

}  // namespace wanem
