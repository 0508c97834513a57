#include "cli/size_parser.h"

#include <cstddef>
#include <limits>
#include <string>

#include "braid/error.h"
#include "cli/quote.h"

namespace braid {
namespace {

/// 64x64-bit products must not overflow while we decide whether the result fits.
__extension__ using Uint128 = unsigned __int128;

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
/// Past this many fraction digits the value cannot change by a whole byte we care about.
constexpr int kMaxFractionDigits = 18;
/// Longest input echoed back in an error, so a hostile argument cannot flood the terminal.
constexpr std::size_t kMaxQuoted = 64;

enum class Kind { kSize, kRate };

[[noreturn]] void Fail(Kind kind, std::string_view text, const std::string& why) {
  throw BraidError(ErrorCode::kUsage,
                   std::string(kind == Kind::kSize ? "invalid size " : "invalid rate ") +
                       QuoteForMessage(text, kMaxQuoted) + ": " + why);
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// "1.5" as whole = 1, fraction = 5, fraction_digits = 1.
struct Number {
  Uint128 whole = 0;
  std::uint64_t fraction = 0;
  int fraction_digits = 0;
  bool has_point = false;
};

/// Consumes the leading number of `rest`.
Number TakeNumber(Kind kind, std::string_view text, std::string_view& rest) {
  static const std::string kExpected = "expected a number such as 4096, 64K or 1.5G";
  if (rest.empty()) {
    Fail(kind, text, "empty; " + kExpected);
  }
  if (rest.front() == '-') {
    Fail(kind, text, "must not be negative");
  }
  if (!IsDigit(rest.front())) {
    Fail(kind, text, kExpected);
  }
  Number n;
  // Whole parts past 2^67 overflow even after dividing by 8 (bits to bytes).
  constexpr Uint128 kWholeLimit = Uint128{1} << 67;
  while (!rest.empty() && IsDigit(rest.front())) {
    n.whole = n.whole * 10 + static_cast<unsigned>(rest.front() - '0');
    if (n.whole >= kWholeLimit) {
      Fail(kind, text, "larger than 2^64-1");
    }
    rest.remove_prefix(1);
  }
  if (!rest.empty() && rest.front() == '.') {
    n.has_point = true;
    rest.remove_prefix(1);
    if (rest.empty() || !IsDigit(rest.front())) {
      Fail(kind, text, "expected digits after the decimal point");
    }
    while (!rest.empty() && IsDigit(rest.front())) {
      if (n.fraction_digits == kMaxFractionDigits) {
        Fail(kind, text, "too many digits after the decimal point");
      }
      n.fraction = n.fraction * 10 + static_cast<unsigned>(rest.front() - '0');
      ++n.fraction_digits;
      rest.remove_prefix(1);
    }
  }
  return n;
}

/// Power of 1024 (or 1000) for a unit letter of either case; 0 when `c` is not one.
int UnitExponent(char c) {
  constexpr std::string_view kUnits = "KMGTPE";
  const char upper = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  const std::size_t pos = kUnits.find(upper);
  return pos == std::string_view::npos ? 0 : static_cast<int>(pos) + 1;
}

std::uint64_t Power(std::uint64_t base, int exponent) {
  std::uint64_t v = 1;
  for (int i = 0; i < exponent; ++i) {
    v *= base;
  }
  return v;
}

bool ConsumePrefix(std::string_view& rest, std::string_view prefix) {
  if (rest.substr(0, prefix.size()) != prefix) {
    return false;
  }
  rest.remove_prefix(prefix.size());
  return true;
}

/// floor((whole + fraction / 10^digits) * multiplier / divisor); fails past 2^64-1.
/// Split so every intermediate fits in 128 bits: whole < 2^67, multiplier <= 2^60,
/// fraction < 10^18, divisor <= 8.
std::uint64_t Scale(Kind kind, std::string_view text, const Number& n, std::uint64_t multiplier,
                    std::uint64_t divisor) {
  const Uint128 pow10 = Power(10, n.fraction_digits);
  const Uint128 whole_product = n.whole * multiplier;
  const Uint128 fraction_product = Uint128{n.fraction} * multiplier;
  const Uint128 fraction_divisor = pow10 * divisor;
  const Uint128 carry =
      (whole_product % divisor * pow10 + fraction_product % fraction_divisor) / fraction_divisor;
  const Uint128 total = whole_product / divisor + fraction_product / fraction_divisor + carry;
  if (total > kMax) {
    Fail(kind, text, "larger than 2^64-1");
  }
  return static_cast<std::uint64_t>(total);
}

std::uint64_t Parse(Kind kind, std::string_view text) {
  std::string_view rest = text;
  const Number number = TakeNumber(kind, text, rest);
  const std::string_view suffix = rest;

  int exponent = 0;
  if (!rest.empty()) {
    exponent = UnitExponent(rest.front());
    if (exponent > 0) {
      rest.remove_prefix(1);
    }
  }
  const bool binary_marker = exponent > 0 && (ConsumePrefix(rest, "i") || ConsumePrefix(rest, "I"));

  bool bits = false;
  if (kind == Kind::kRate && ConsumePrefix(rest, "bps")) {
    bits = true;
  } else if (kind == Kind::kRate && (ConsumePrefix(rest, "bits") || ConsumePrefix(rest, "bit"))) {
    bits = true;
    ConsumePrefix(rest, "/s");
  } else {
    const bool byte_marker = ConsumePrefix(rest, "B");
    if (binary_marker && !byte_marker) {
      Fail(kind, text, "\"i\" must be followed by B");
    }
    if (kind == Kind::kRate) {
      ConsumePrefix(rest, "/s");
    }
  }

  if (!rest.empty()) {
    if (rest.front() == 'b') {
      Fail(kind, text,
           kind == Kind::kSize ? "\"b\" is ambiguous; write B for bytes"
                               : "\"b\" is ambiguous; write B for bytes or bit for bits");
    }
    Fail(kind, text,
         "unknown unit " + QuoteForMessage(suffix, kMaxQuoted) +
             (kind == Kind::kSize ? " (use K, M, G, T, P or E, optionally followed by B or iB)"
                                  : " (use K, M, G, T, P or E followed by B or bit, e.g. "
                                    "100MB/s or 800Mbit)"));
  }

  // Bytes are always binary (a bare "K" has meant 1024 since dd); bits are SI unless "i".
  const std::uint64_t base = (bits && !binary_marker) ? 1000 : 1024;
  const std::uint64_t multiplier = Power(base, exponent);
  const std::uint64_t divisor = bits ? 8 : 1;
  if (number.has_point && multiplier == 1 && divisor == 1) {
    Fail(kind, text, "a fraction needs a unit such as K or M");
  }
  return Scale(kind, text, number, multiplier, divisor);
}

}  // namespace

std::uint64_t ParseSize(std::string_view text) { return Parse(Kind::kSize, text); }

std::uint64_t ParseRate(std::string_view text) { return Parse(Kind::kRate, text); }

}  // namespace braid
