#include "agent/report/progress_format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <vector>

#include "agent/report/visible_text.h"

namespace braid {
namespace {

constexpr int kMaxWidth = 4096;
/// "[" + 5 cells + "]": narrower than this a bar says nothing.
constexpr std::size_t kMinBarWidth = 7;
/// With a current file shown, the bar keeps at least this many columns.
constexpr std::size_t kBarBesideName = 12;
/// A name cut shorter than this says too little to be worth the bar's room.
constexpr std::size_t kMinNameColumns = 12;
/// Cells per second the unknown-total marker moves.
constexpr double kBounceSpeed = 8;
/// Durations from here on are nonsense (a stalled transfer's ETA).
constexpr double kMaxDurationSeconds = 100000.0 * 3600;

template <typename... Args>
std::string Printf(const char* format, Args... args) {
  std::array<char, 64> buf{};
  const int n = std::snprintf(buf.data(), buf.size(), format, args...);
  if (n < 0) {
    return "";
  }
  return std::string(buf.data(), std::min(static_cast<std::size_t>(n), buf.size() - 1));
}

/// Binary rate in the largest unit that keeps the number below 1024. `compact` drops the
/// decimal from 100 up ("812 MiB/s"), for the bar where space is short.
std::string RateText(double bytes_per_second, bool compact) {
  static constexpr std::array<const char*, 7> kUnits = {"B/s",   "KiB/s", "MiB/s", "GiB/s",
                                                        "TiB/s", "PiB/s", "EiB/s"};
  if (!std::isfinite(bytes_per_second) || bytes_per_second <= 0) {
    return "0 B/s";
  }
  if (bytes_per_second >= 999.95 * 0x1p60) {
    return ">999 EiB/s";  // keeps a garbage input from printing 300 digits
  }
  double v = bytes_per_second;
  std::size_t unit = 0;
  // Promote on the value as it will print, so 1023.96 KiB/s shows as 1.0 MiB/s.
  auto rounds_to_1024 = [&](double x) { return x >= (unit == 0 ? 1023.5 : 1023.95); };
  while (unit + 1 < kUnits.size() && rounds_to_1024(v)) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0) {
    return Printf("%.0f %s", v, kUnits[unit]);
  }
  return Printf(compact && v >= 99.95 ? "%.0f %s" : "%.1f %s", v, kUnits[unit]);
}

/// h:mm:ss pieces of a sane, non-negative duration.
struct Clock {
  std::uint64_t hours, minutes, seconds;
};

std::optional<Clock> ToClock(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0 || seconds >= kMaxDurationSeconds) {
    return std::nullopt;
  }
  const auto total = static_cast<std::uint64_t>(seconds);
  return Clock{total / 3600, total / 60 % 60, total % 60};
}

/// Always hours, minutes and seconds, so -P lines line up in a log.
std::string FormatLongDuration(double seconds) {
  const auto clock = ToClock(seconds);
  if (!clock) {
    return "--:--:--";
  }
  return Printf("%02llu:%02llu:%02llu", static_cast<unsigned long long>(clock->hours),
                static_cast<unsigned long long>(clock->minutes),
                static_cast<unsigned long long>(clock->seconds));
}

/// Whole percent, never 100 before the last byte.
int Percent(std::uint64_t done, std::uint64_t total) {
  if (done >= total) {
    return 100;
  }
  const double p = std::floor(100.0 * static_cast<double>(done) / static_cast<double>(total));
  return std::clamp(static_cast<int>(p), 0, 99);
}

/// Fraction of the known total, in [0, 1].
double Fraction(std::uint64_t done, std::uint64_t total) {
  if (done >= total) {
    return 1;
  }
  return std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0);
}

std::string FilledBar(std::size_t width, double fraction) {
  const std::size_t inner = width - 2;
  const auto filled =
      std::min(inner, static_cast<std::size_t>(std::floor(fraction * static_cast<double>(inner))));
  std::string cells(filled, '=');
  if (filled < inner) {
    cells += '>';
    cells.append(inner - filled - 1, ' ');
  }
  return "[" + cells + "]";
}

/// A "<=>" marker bouncing between the brackets as time passes.
std::string BouncingBar(std::size_t width, double elapsed_s) {
  static constexpr std::string_view kMarker = "<=>";
  const std::size_t inner = width - 2;
  const std::size_t positions = inner - kMarker.size() + 1;
  std::size_t pos = 0;
  if (positions > 1 && std::isfinite(elapsed_s) && elapsed_s > 0) {
    const auto cycle = static_cast<double>(2 * (positions - 1));
    const auto step =
        static_cast<std::size_t>(std::fmod(std::floor(elapsed_s * kBounceSpeed), cycle));
    pos = step < positions ? step : 2 * (positions - 1) - step;
  }
  std::string cells(inner, ' ');
  cells.replace(pos, kMarker.size(), kMarker);
  return "[" + cells + "]";
}

/// Fields joined with two spaces, except one after the percentage ("42% 1.23 GiB").
std::string Join(const std::vector<std::string>& fields, std::size_t count, bool has_percent) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) {
      out += (i == 1 && has_percent) ? " " : "  ";
    }
    out += fields[i];
  }
  return out;
}

std::string PadTo(std::string text, std::size_t width) {
  text.resize(width, ' ');
  return text;
}

std::uint64_t Left(const ProgressSnapshot& s) {
  return s.bytes_total && s.bytes_done < *s.bytes_total ? *s.bytes_total - s.bytes_done : 0;
}

/// A fresh current rate is best for the ETA; before there is one, the average.
double EtaRate(const ProgressSnapshot& s) {
  return s.current_rate_Bps > 0 ? s.current_rate_Bps : s.average_rate_Bps;
}

/// "1.23/2.92 GiB", or "512.00 MiB/2.92 GiB" when the units differ.
std::string DoneOfTotal(std::uint64_t done, std::uint64_t total) {
  const std::string a = FormatBytes(done);
  const std::string b = FormatBytes(total);
  const std::size_t a_unit = a.rfind(' ');
  if (a.substr(a_unit) == b.substr(b.rfind(' '))) return a.substr(0, a_unit) + "/" + b;
  return a + "/" + b;
}

/// The bar's fields, most important first: later ones are dropped first when space is short.
std::vector<std::string> BarFields(const ProgressSnapshot& s) {
  const double rate = EtaRate(s);
  std::vector<std::string> fields;
  if (s.bytes_total) {
    fields.push_back(Printf("%3d%%", Percent(s.bytes_done, *s.bytes_total)));
    fields.push_back(DoneOfTotal(s.bytes_done, *s.bytes_total));
    fields.push_back(RateText(rate, true));
    fields.push_back("ETA " + FormatDuration(EtaSeconds(Left(s), rate)));
  } else {
    fields.push_back(FormatBytes(s.bytes_done));
    fields.push_back(RateText(rate, true));
    fields.push_back(FormatDuration(s.elapsed_s));
  }
  if (s.files_total > 1) {
    fields.push_back(std::to_string(s.files_done) + "/" + CountOf(s.files_total, "file"));
  }
  return fields;
}

/// Columns `text` takes, counting each UTF-8 character as one.
std::size_t Columns(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

/// `name` made visible and cut to at most `room - beside` columns from the left
/// ("...ir/name"), keeping `beside` columns for the bar; "" when fewer than
/// kMinNameColumns would be left.
std::string FitName(std::string_view name, std::size_t room, std::size_t beside) {
  if (name.empty() || room < beside + 2 + kMinNameColumns) return "";
  const std::size_t fits = room - beside - 2;
  std::string shown = VisibleText(name);
  std::size_t columns = Columns(shown);
  if (columns <= fits) return shown;
  std::size_t cut = 0;  // drop whole characters from the front until "..." and the rest fit
  while (columns > fits - 3) {
    ++cut;
    while (cut < shown.size() && (static_cast<unsigned char>(shown[cut]) & 0xC0) == 0x80) ++cut;
    --columns;
  }
  return "..." + shown.substr(cut);
}

}  // namespace

std::string CountOf(std::uint64_t n, std::string_view singular, std::string_view plural) {
  std::string out = std::to_string(n) + " ";
  if (n == 1) return out.append(singular);
  if (!plural.empty()) return out.append(plural);
  return out.append(singular) + "s";
}

std::string FormatBytes(std::uint64_t bytes) {
  static constexpr std::array<const char*, 6> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) {
    return Printf("%u B", static_cast<unsigned>(bytes));
  }
  double v = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  // Promote on the value as it will print, so 1023.999 KiB shows as 1.00 MiB.
  while (unit + 1 < kUnits.size() && v >= 1023.995) {
    v /= 1024;
    ++unit;
  }
  return Printf("%.2f %s", v, kUnits[unit]);
}

std::string FormatRate(double bytes_per_second) { return RateText(bytes_per_second, false); }

std::string FormatDuration(double seconds) {
  const auto clock = ToClock(seconds);
  if (!clock) {
    return "--:--";
  }
  if (clock->hours == 0) {
    return Printf("%02llu:%02llu", static_cast<unsigned long long>(clock->minutes),
                  static_cast<unsigned long long>(clock->seconds));
  }
  return FormatLongDuration(seconds);
}

double EtaSeconds(std::uint64_t left, double rate_Bps) {
  if (left == 0) return 0;
  if (!std::isfinite(rate_Bps) || rate_Bps <= 0) return -1;
  return std::ceil(static_cast<double>(left) / rate_Bps);
}

std::string FormatProgressLine(const ProgressSnapshot& s) {
  std::string line = "braid: ";
  if (s.bytes_total) {
    line += Printf("%3d%% ", Percent(s.bytes_done, *s.bytes_total)) + FormatBytes(s.bytes_done) +
            " of " + FormatBytes(*s.bytes_total);
  } else {
    line += FormatBytes(s.bytes_done);
  }
  if (s.files_total > 1) {
    line += "  " + std::to_string(s.files_done) + "/" + CountOf(s.files_total, "file");
  }
  line += "  cur " + FormatRate(s.current_rate_Bps) + "  avg " + FormatRate(s.average_rate_Bps) +
          "  elapsed " + FormatLongDuration(s.elapsed_s);
  if (s.bytes_total) line += "  ETA " + FormatLongDuration(EtaSeconds(Left(s), EtaRate(s)));
  return line;
}

std::string FormatProgressBar(const ProgressSnapshot& s, int terminal_width) {
  if (terminal_width <= 0) {
    return "";
  }
  const auto width = static_cast<std::size_t>(std::min(terminal_width, kMaxWidth));
  const bool known = s.bytes_total.has_value();
  const std::vector<std::string> fields = BarFields(s);
  for (std::size_t count = fields.size(); count > 0; --count) {
    const std::string text = Join(fields, count, known);
    if (width >= text.size() + 1 + kMinBarWidth) {
      // The current file goes last, in what the bar can spare of its room.
      const std::size_t room = width - text.size() - 1;
      const std::string name =
          count == fields.size() ? FitName(s.current_file, room, kBarBesideName) : "";
      const std::size_t bar_width = room - (name.empty() ? 0 : Columns(name) + 2);
      std::string line = known ? FilledBar(bar_width, Fraction(s.bytes_done, *s.bytes_total))
                               : BouncingBar(bar_width, s.elapsed_s);
      line += ' ';
      line += text;
      if (!name.empty()) line += "  " + name;
      return line;
    }
  }
  for (std::size_t count = fields.size(); count > 0; --count) {
    const std::string text = Join(fields, count, known);
    if (width >= text.size()) {
      return PadTo(text, width);
    }
  }
  // Narrower than the most important field: show as much of it as fits.
  std::string first = fields.front();
  first.erase(0, first.find_first_not_of(' '));
  return PadTo(first.substr(0, width), width);
}

RateMeter::RateMeter(double window_s)
    : window_s_(std::isfinite(window_s) && window_s > 0 ? window_s : 2.0) {}

void RateMeter::Add(double time_s, std::uint64_t total_bytes) {
  if (!std::isfinite(time_s)) {
    return;
  }
  if (!start_) {
    start_ = Sample{time_s, total_bytes};
    recent_.push_back(*start_);
    return;
  }
  if (time_s < recent_.back().time_s || total_bytes < recent_.back().bytes) {
    return;
  }
  // Keep samples about window/32 apart so memory stays bounded however often we are fed;
  // the front sample is never overwritten, so the window's start stays fixed.
  const std::size_t n = recent_.size();
  if (n >= 2 && time_s - recent_[n - 2].time_s < window_s_ / 32) {
    recent_.back() = Sample{time_s, total_bytes};
  } else {
    recent_.push_back(Sample{time_s, total_bytes});
  }
  while (recent_.size() >= 2 && recent_[1].time_s <= time_s - window_s_) {
    recent_.pop_front();
  }
}

double RateMeter::CurrentRate() const {
  if (recent_.size() < 2) {
    return 0;
  }
  const double dt = recent_.back().time_s - recent_.front().time_s;
  if (dt <= 0) {
    return 0;
  }
  return static_cast<double>(recent_.back().bytes - recent_.front().bytes) / dt;
}

double RateMeter::AverageRate() const {
  const double dt = ElapsedSeconds();
  return dt > 0 ? static_cast<double>(BytesSinceStart()) / dt : 0;
}

double RateMeter::ElapsedSeconds() const {
  return start_ ? recent_.back().time_s - start_->time_s : 0;
}

std::uint64_t RateMeter::BytesSinceStart() const {
  return start_ ? recent_.back().bytes - start_->bytes : 0;
}

}  // namespace braid
