#include "core/counters_format.h"

#include <cinttypes>
#include <cstdio>

#include "core/units.h"

namespace wanem {
namespace {

std::string Printf(const char* format, auto... args) {
  char line[512];
  std::snprintf(line, sizeof line, format, args...);
  return line;
}

std::string Rate(std::uint64_t bytes, std::int64_t elapsed_ns) {
  if (elapsed_ns <= 0) return "-";
  double scaled = 0;
  const std::string_view unit =
      FormatRateUnit(static_cast<double>(bytes) * 8e9 / static_cast<double>(elapsed_ns), scaled);
  return Printf("%.1f %.*s", scaled, static_cast<int>(unit.size()), unit.data());
}

}  // namespace

std::string FormatCounters(std::string_view label, const DirectionCounters& c, bool classes,
                           std::int64_t elapsed_ns) {
  const std::int64_t mean_ns =
      c.delivered_frames > 0 ? c.total_lateness_ns / static_cast<std::int64_t>(c.delivered_frames)
                             : 0;
  std::string out =
      Printf("%.*s: delivered %" PRIu64 " segments in %" PRIu64 " frames, %" PRIu64
             " bytes (%s mean); lost %" PRIu64 " segments; queue drops %" PRIu64
             " segments (%" PRIu64 " bytes); GSO splits %" PRIu64 "; late releases %" PRIu64
             "; lateness mean %.1f us, max %.1f us; write errors %" PRIu64 "\n",
             static_cast<int>(label.size()), label.data(), c.delivered_segments, c.delivered_frames,
             c.delivered_bytes, Rate(c.delivered_bytes, elapsed_ns).c_str(), c.lost_segments,
             c.queue_drop_segments, c.queue_drop_bytes, c.gso_splits, c.late_releases,
             static_cast<double>(mean_ns) / 1e3, static_cast<double>(c.max_lateness_ns) / 1e3,
             c.write_errors);
  if (classes) {
    for (TrafficClass t :
         {TrafficClass::kPriority, TrafficClass::kBestEffort, TrafficClass::kScavenger}) {
      const ClassCounters& k = c.per_class[Index(t)];
      const std::string_view name = ClassName(t);
      out += Printf("  %-11.*s delivered %" PRIu64 " bytes (%s mean), queue drops %" PRIu64
                    " segments\n",
                    static_cast<int>(name.size()), name.data(), k.delivered_bytes,
                    Rate(k.delivered_bytes, elapsed_ns).c_str(), k.queue_drop_segments);
    }
  }
  return out;
}

std::string_view CsvHeader() {
  return "time,direction,class,bytes,mbit_s,queue_drop_segments,lost_segments\n";
}

std::string FormatCsvRows(double unix_time, std::string_view label, const DirectionCounters& now,
                          const DirectionCounters& before, std::int64_t interval_ns) {
  std::string out;
  const double seconds = static_cast<double>(interval_ns) / 1e9;
  for (TrafficClass t :
       {TrafficClass::kPriority, TrafficClass::kBestEffort, TrafficClass::kScavenger}) {
    const ClassCounters& a = now.per_class[Index(t)];
    const ClassCounters& b = before.per_class[Index(t)];
    const std::uint64_t bytes = a.delivered_bytes - b.delivered_bytes;
    const std::string_view name = ClassName(t);
    const std::uint64_t lost = a.lost_segments - b.lost_segments;
    out += Printf("%.3f,%.*s,%.*s,%" PRIu64 ",%.3f,%" PRIu64 ",%" PRIu64 "\n", unix_time,
                  static_cast<int>(label.size()), label.data(), static_cast<int>(name.size()),
                  name.data(), bytes,
                  seconds > 0 ? static_cast<double>(bytes) * 8 / seconds / 1e6 : 0.0,
                  a.queue_drop_segments - b.queue_drop_segments, lost);
  }
  return out;
}

}  // namespace wanem
