#include "cli/destination_list.h"

#include <set>

#include "braid/error.h"
#include "braid/options.h"
#include "cli/endpoint_parser.h"
#include "cli/list_file.h"
#include "cli/quote.h"

namespace braid {
namespace {

constexpr std::size_t kMaxListBytes = 1 << 20;
/// Longest operand echoed back in an error.
constexpr std::size_t kMaxQuoted = 64;

std::string_view Trim(std::string_view line) {
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
}

}  // namespace

std::vector<Endpoint> ParseDestinationList(std::string_view text, const std::string& file_name) {
  std::vector<Endpoint> out;
  int number = 0;
  while (!text.empty()) {
    ++number;
    const auto end = text.find('\n');
    std::string_view line = Trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = file_name + ":" + std::to_string(number) + ": ";
    if (line == "-") throw BraidError(ErrorCode::kUsage, where + "a destination cannot be stdout");
    try {
      out.push_back(ParseEndpoint(line));
    } catch (const BraidError& e) {
      throw BraidError(ErrorCode::kUsage, where + e.what());
    }
    if (out.size() > kMaxDestinations) {
      throw BraidError(ErrorCode::kUsage,
                       where + "more than " + std::to_string(kMaxDestinations) + " destinations");
    }
  }
  return out;
}

std::string ReadDestinationFile(const std::string& path) {
  return ReadListFile(path, "--to-file", kMaxListBytes);
}

void CheckDestinations(const std::vector<Endpoint>& destinations) {
  if (destinations.empty()) {
    throw BraidError(ErrorCode::kUsage, "no destination: --to-file names none and no --to given");
  }
  if (destinations.size() > kMaxDestinations) {
    throw BraidError(ErrorCode::kUsage,
                     "more than " + std::to_string(kMaxDestinations) + " destinations");
  }
  std::set<std::string> seen;
  for (const Endpoint& d : destinations) {
    if (d.is_stdio()) throw BraidError(ErrorCode::kUsage, "--to: a destination cannot be stdout");
    // The same target twice would have two sinks wait on one partial file's lock.
    const std::string key = d.user + "@" + d.Display();
    if (!seen.insert(key).second) {
      throw BraidError(
          ErrorCode::kUsage,
          "destination " + QuoteForMessage(d.Display(), kMaxQuoted) + " is given twice");
    }
  }
}

}  // namespace braid
