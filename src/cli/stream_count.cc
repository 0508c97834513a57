#include "cli/stream_count.h"

#include <cstddef>
#include <string>

#include "braid/error.h"
#include "braid/options.h"
#include "cli/quote.h"

namespace braid {
namespace {

/// Longest input echoed back in an error, so a hostile argument cannot flood the terminal.
constexpr std::size_t kMaxQuoted = 64;
constexpr std::string_view kAuto = "auto";

[[noreturn]] void Fail(std::string_view text, const std::string& why) {
  throw BraidError(ErrorCode::kUsage,
                   "-s/--streams " + why + ", got " + QuoteForMessage(text, kMaxQuoted));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// A count 1..kMaxStreams in plain digits; -1 for anything else. Stops accumulating past
/// three digits so a long run of digits cannot overflow.
int TakeCount(std::string_view digits) {
  if (digits.empty() || digits.size() > 3) return -1;
  int value = 0;
  for (char c : digits) {
    if (!IsDigit(c)) return -1;
    value = value * 10 + (c - '0');
  }
  return (value >= 1 && value <= kMaxStreams) ? value : -1;
}

/// True when `text` starts with "auto" in any case.
bool StartsWithAuto(std::string_view text) {
  if (text.size() < kAuto.size()) return false;
  for (std::size_t i = 0; i < kAuto.size(); ++i) {
    const char c = text[i];
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    if (lower != kAuto[i]) return false;
  }
  return true;
}

}  // namespace

StreamCount ParseStreamCount(std::string_view text) {
  const std::string range = "1 to " + std::to_string(kMaxStreams);
  if (!StartsWithAuto(text)) {
    const int n = TakeCount(text);
    if (n < 0) Fail(text, "must be a whole number from " + range + ", auto or auto:MIN-MAX");
    return StreamCount{false, n, n};
  }
  std::string_view rest = text.substr(kAuto.size());
  if (rest.empty()) return StreamCount{true, 1, kMaxStreams};
  if (rest.front() != ':')
    Fail(text, "must be a whole number from " + range + ", auto or auto:MIN-MAX");
  rest.remove_prefix(1);
  const std::size_t dash = rest.find('-');
  if (dash == std::string_view::npos) Fail(text, "auto needs a range such as auto:2-16");
  const int min = TakeCount(rest.substr(0, dash));
  const int max = TakeCount(rest.substr(dash + 1));
  if (min < 0 || max < 0) Fail(text, "auto:MIN-MAX needs whole numbers from " + range);
  if (min > max) Fail(text, "auto:MIN-MAX needs MIN <= MAX");
  return StreamCount{true, min, max};
}

}  // namespace braid
