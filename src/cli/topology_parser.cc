#include "cli/topology_parser.h"

#include <charconv>
#include <string>

#include "braid/error.h"
#include "braid/name_match.h"
#include "cli/quote.h"

namespace braid {
namespace {

/// Longest input echoed back in an error, so a hostile argument cannot flood the terminal.
constexpr std::size_t kMaxQuoted = 64;

[[noreturn]] void Fail(std::string_view text, const std::string& why) {
  throw BraidError(ErrorCode::kUsage,
                   "--topology: invalid value " + QuoteForMessage(text, kMaxQuoted) + ": " + why +
                       "; use chain, tree:K (K " + std::to_string(kMinTreeFanout) + "-" +
                       std::to_string(kMaxTreeFanout) + "), star or auto");
}

/// K of tree:K: digits only (from_chars would take a sign), within the bounds.
int ParseFanout(std::string_view whole, std::string_view digits) {
  if (digits.empty()) Fail(whole, "tree needs a fan-out after the colon");
  int value = 0;
  const char* end = digits.data() + digits.size();
  auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits[0] < '0' || digits[0] > '9' || ptr != end) {
    Fail(whole, "the fan-out is not a number");
  }
  if (ec != std::errc() || value < kMinTreeFanout || value > kMaxTreeFanout) {
    Fail(whole, "the fan-out is out of range");
  }
  return value;
}

}  // namespace

Topology ParseTopology(std::string_view text) {
  if (text.empty()) Fail(text, "empty");
  if (MatchesName(text, "chain")) return {TopologyKind::kChain, 0};
  if (MatchesName(text, "star")) return {TopologyKind::kStar, 0};
  if (MatchesName(text, "auto")) return {TopologyKind::kAuto, 0};
  if (MatchesName(text, "tree")) Fail(text, "tree needs a fan-out, as in tree:2");
  if (text.size() >= 5 && MatchesName(text.substr(0, 5), "tree:")) {
    return {TopologyKind::kTree, ParseFanout(text, text.substr(5))};
  }
  Fail(text, "not a topology");
}

}  // namespace braid
