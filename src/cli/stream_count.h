#pragma once
/// The value of -s/--streams: a fixed count, or "auto" with the range the stream
/// controller may move in.

#include <string_view>

namespace braid {

/// What -s asked for. A fixed count N is {automatic = false, min = max = N}, so code
/// that only needs "how many streams to connect" can read `max` either way.
struct StreamCount {
  bool automatic = false;
  int min = 1;  ///< fewest streams that carry data (== max for a fixed count)
  int max = 1;  ///< most streams that carry data; also how many to connect

  bool operator==(const StreamCount&) const = default;
};

/// Parses "N" (1..64), "auto" (1..64) or "auto:MIN-MAX" (1 <= MIN <= MAX <= 64).
/// "auto" is accepted in any case; numbers are plain decimal digits (no sign, spaces or
/// suffix). Throws BraidError(kUsage) with a one-line message quoting `text` otherwise.
StreamCount ParseStreamCount(std::string_view text);

}  // namespace braid
