#include "cli/qos_parser.h"

#include <cctype>
#include <charconv>
#include <string>

#include "braid/error.h"
#include "cli/quote.h"

namespace braid {
namespace {

/// Longest input echoed back in an error, so a hostile argument cannot flood the terminal.
constexpr std::size_t kMaxQuoted = 64;
constexpr int kMaxTos = 255;

/// DSCP occupies the upper six bits of the byte; the lower two are ECN's.
constexpr int TosFromDscp(int dscp) { return dscp << 2; }

[[noreturn]] void Fail(std::string_view text, const std::string& why) {
  throw BraidError(ErrorCode::kUsage,
                   "-q/--qos: invalid value " + QuoteForMessage(text, kMaxQuoted) + ": " + why +
                       "; use a number 0-255 (or 0x00-0xff) or one of qbss, le, ef, "
                       "af11..af43, cs0..cs7");
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// A whole number with no sign, spaces or suffix, in base 10 or (after 0x) 16.
int ParseNumber(std::string_view text) {
  int base = 10;
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
    base = 16;
    digits.remove_prefix(2);
  }
  int value = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value, base);
  // from_chars accepts a leading '-'; a TOS byte has no sign.
  if (digits.empty() || digits[0] == '-' || ec != std::errc() || ptr != end) {
    Fail(text, "not a number or a known name");
  }
  if (value > kMaxTos) Fail(text, "a TOS byte is at most 255 (0xff)");
  return value;
}

}  // namespace

int ParseQos(std::string_view text) {
  if (text.empty()) Fail(text, "empty");
  if (IsDigit(text[0])) return ParseNumber(text);

  std::string name;
  for (char c : text) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name == "qbss") return TosFromDscp(8);  // CS1, as Internet2's QBSS defined it
  if (name == "le") return TosFromDscp(1);
  if (name == "ef") return TosFromDscp(46);
  if (name.size() == 4 && name.starts_with("af") && name[2] >= '1' && name[2] <= '4' &&
      name[3] >= '1' && name[3] <= '3') {
    return TosFromDscp(8 * (name[2] - '0') + 2 * (name[3] - '0'));
  }
  if (name.size() == 3 && name.starts_with("cs") && name[2] >= '0' && name[2] <= '7') {
    return TosFromDscp(8 * (name[2] - '0'));
  }
  Fail(text, "not a number or a known name");
}

}  // namespace braid
