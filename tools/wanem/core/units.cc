#include "core/units.h"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string>

namespace wanem {
namespace {

/// Splits "2.5Gbit" into 2.5 and "Gbit"; throws when no number leads.
double LeadingNumber(std::string_view text, std::string_view what, std::string_view& rest) {
  const std::string copy(text);
  std::size_t used = 0;
  double value = 0;
  try {
    value = std::stod(copy, &used);
  } catch (const std::exception&) {
    throw std::invalid_argument(std::string(what) + " '" + copy + "' does not start with a number");
  }
  if (!std::isfinite(value) || value < 0) {
    throw std::invalid_argument(std::string(what) + " '" + copy + "' must be a finite number >= 0");
  }
  rest = text.substr(used);
  return value;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::uint64_t ParseRate(std::string_view text) {
  std::string_view rest;
  double value = LeadingNumber(text, "rate", rest);
  std::string unit = Lower(rest);
  for (std::string_view tail : {"bit/s", "bps", "bit", "b/s"}) {
    if (unit.size() >= tail.size() && unit.ends_with(tail)) {
      unit.resize(unit.size() - tail.size());
      break;
    }
  }
  double scale = 1;
  if (unit == "k") {
    scale = 1e3;
  } else if (unit == "m") {
    scale = 1e6;
  } else if (unit == "g") {
    scale = 1e9;
  } else if (unit == "t") {
    scale = 1e12;
  } else if (!unit.empty()) {
    throw std::invalid_argument("rate '" + std::string(text) +
                                "': unknown unit (use e.g. 500M or 1Gbit; bits/s, decimal)");
  }
  const double bits = value * scale;
  if (bits > 1e15) throw std::invalid_argument("rate '" + std::string(text) + "' is too large");
  return static_cast<std::uint64_t>(std::llround(bits));
}

std::int64_t ParseDuration(std::string_view text) {
  std::string_view rest;
  double value = LeadingNumber(text, "duration", rest);
  const std::string unit = Lower(rest);
  double scale = 0;
  if (unit == "ns") {
    scale = 1;
  } else if (unit == "us") {
    scale = 1e3;
  } else if (unit == "ms") {
    scale = 1e6;
  } else if (unit == "s") {
    scale = 1e9;
  } else if (unit.empty() && value == 0) {
    return 0;
  } else {
    throw std::invalid_argument("duration '" + std::string(text) +
                                "' needs a unit: ns, us, ms or s (e.g. 50ms)");
  }
  const double ns = value * scale;
  if (ns > 3.6e12) throw std::invalid_argument("duration '" + std::string(text) + "' exceeds 1 h");
  return static_cast<std::int64_t>(std::llround(ns));
}

std::uint64_t ParseBytes(std::string_view text) {
  std::string_view rest;
  double value = LeadingNumber(text, "size", rest);
  std::string unit = Lower(rest);
  if (unit.ends_with("ib")) {
    unit.resize(unit.size() - 2);
  } else if (unit.ends_with("b")) {
    unit.resize(unit.size() - 1);
  }
  double scale = 1;
  if (unit == "k") {
    scale = 1024.0;
  } else if (unit == "m") {
    scale = 1024.0 * 1024;
  } else if (unit == "g") {
    scale = 1024.0 * 1024 * 1024;
  } else if (!unit.empty()) {
    throw std::invalid_argument("size '" + std::string(text) + "': unknown unit (use K, M or G)");
  }
  const double bytes = value * scale;
  if (bytes > 1e12) throw std::invalid_argument("size '" + std::string(text) + "' is too large");
  return static_cast<std::uint64_t>(std::llround(bytes));
}

double ParseFraction(std::string_view text) {
  std::string_view rest;
  double value = LeadingNumber(text, "probability", rest);
  if (rest == "%") {
    value /= 100;
  } else if (!rest.empty()) {
    throw std::invalid_argument("'" + std::string(text) +
                                "' is not a fraction (use e.g. 0.01% or 0.0001)");
  }
  if (value > 1) throw std::invalid_argument("'" + std::string(text) + "' is more than 100%");
  return value;
}

std::string_view FormatRateUnit(double bits_per_second, double& scaled) {
  if (bits_per_second >= 1e9) {
    scaled = bits_per_second / 1e9;
    return "Gbit/s";
  }
  if (bits_per_second >= 1e6) {
    scaled = bits_per_second / 1e6;
    return "Mbit/s";
  }
  if (bits_per_second >= 1e3) {
    scaled = bits_per_second / 1e3;
    return "kbit/s";
  }
  scaled = bits_per_second;
  return "bit/s";
}

}  // namespace wanem
