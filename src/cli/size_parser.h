#pragma once
/// Byte counts and rates as users type them on the command line: "4K", "1.5G", "800Mbit".

#include <cstdint>
#include <string_view>

namespace braid {

/// Parses a byte count: digits with an optional fraction and an optional unit.
///
/// Units K, M, G, T, P, E (either case) are binary (K = 1024), as dd and bbcp use them;
/// a trailing "B" or "iB" is allowed ("4K", "4KB", "4KiB" are all 4096). A fraction needs
/// a unit ("1.5G"); the result is rounded down to a whole byte. Lower-case "b" alone is
/// rejected because it usually means bits.
///
/// Throws BraidError(kUsage) quoting `text` when it is empty, negative, not a number, has an
/// unknown unit, or exceeds 2^64-1.
std::uint64_t ParseSize(std::string_view text);

/// Parses a rate in bytes per second.
///
/// Byte forms are those of ParseSize with an optional "/s" ("100M", "100MB/s").
/// Bit forms end in "bit", "bits", "bit/s" or "bps" and use decimal SI units as network
/// people do ("800Mbit" = 800 * 10^6 bits/s = 100,000,000 bytes/s, "10kbit" = 1250);
/// an explicit "i" makes them binary ("1Mibit" = 2^20 bits/s). The result is rounded down
/// to whole bytes per second, so it may be 0; callers decide whether 0 is acceptable.
///
/// Throws BraidError(kUsage) quoting `text` on the same errors as ParseSize.
std::uint64_t ParseRate(std::string_view text);

}  // namespace braid
