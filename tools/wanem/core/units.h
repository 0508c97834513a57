#pragma once
/// The command line's quantities: link rates, delays, sizes and probabilities.
/// Pure parsing, so the CLI and the tests agree on what "1G" or "0.01%" means.

#include <cstdint>
#include <string_view>

namespace wanem {

/// Bits per second. Network prefixes are decimal: "1G" = "1Gbit" = 1e9 bit/s,
/// "500M", "100k", "2.5G", an optional "bit", "bit/s" or "bps" suffix, and a
/// bare number is bit/s. "0" means unlimited. Throws std::invalid_argument.
std::uint64_t ParseRate(std::string_view text);

/// Nanoseconds from "50ms", "25us", "0.5s", "100ns". A unit is required except
/// for "0", because a bare "50" is as likely to mean ms as s.
std::int64_t ParseDuration(std::string_view text);

/// Bytes; suffixes are binary as in braid ("64K" = 65536, "6M", "1G"), with an
/// optional "B" or "iB". Throws std::invalid_argument.
std::uint64_t ParseBytes(std::string_view text);

/// A probability or share: "0.01%" = 0.0001, or a plain fraction "0.0001".
/// Must lie in [0, 1].
double ParseFraction(std::string_view text);

/// "1.5 Gbit/s", "500 Mbit/s": for messages and the README's figures.
std::string_view FormatRateUnit(double bits_per_second, double& scaled);

}  // namespace wanem
