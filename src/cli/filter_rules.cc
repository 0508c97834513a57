#include "cli/filter_rules.h"

#include "braid/error.h"
#include "cli/list_file.h"
#include "cli/quote.h"

namespace braid {
namespace {

/// A file of patterns is a few KiB; this bound only stops a mistake (a data
/// file given by accident) before it is read whole.
constexpr std::size_t kMaxPatternFileBytes = std::size_t{4} << 20;

const char* OptionName(GivenFilter::Kind kind) {
  switch (kind) {
    case GivenFilter::Kind::kExclude:
      return "--exclude";
    case GivenFilter::Kind::kInclude:
      return "--include";
    case GivenFilter::Kind::kExcludeFrom:
      return "--exclude-from";
    case GivenFilter::Kind::kIncludeFrom:
      return "--include-from";
  }
  return "--exclude";
}

/// `where` names the option, or the file and line, for the message.
PathFilterRule CheckedRule(bool include, std::string pattern, const std::string& where) {
  if (pattern.find_first_not_of('/') == std::string::npos) {
    throw BraidError(ErrorCode::kUsage,
                     where + ": " +
                         (pattern.empty() ? std::string("an empty pattern")
                                          : "the pattern " + QuoteForMessage(pattern, 256)) +
                         " matches nothing; give a name or a glob such as '*.tmp'");
  }
  if (pattern.size() > kMaxFilterPatternLength) {
    throw BraidError(ErrorCode::kUsage, where + ": a pattern longer than " +
                                            std::to_string(kMaxFilterPatternLength) + " bytes");
  }
  return {include, std::move(pattern)};
}

}  // namespace

std::vector<PathFilterRule> CollectFilterRules(const std::vector<GivenFilter>& given) {
  std::vector<PathFilterRule> rules;
  for (const GivenFilter& g : given) {
    const char* option = OptionName(g.kind);
    const bool include =
        g.kind == GivenFilter::Kind::kInclude || g.kind == GivenFilter::Kind::kIncludeFrom;
    if (g.kind == GivenFilter::Kind::kExclude || g.kind == GivenFilter::Kind::kInclude) {
      rules.push_back(CheckedRule(include, g.value, option));
    } else {
      if (g.value.empty()) {
        throw BraidError(ErrorCode::kUsage,
                         std::string(option) + " needs a file name (- for stdin)");
      }
      const std::string text = ReadListFile(g.value, option, kMaxPatternFileBytes);
      const std::string file = g.value == "-" ? "standard input" : QuoteForMessage(g.value, 256);
      for (ListedLine& line : ParseListLines(text, false)) {
        rules.push_back(
            CheckedRule(include, std::move(line.text),
                        std::string(option) + " " + file + ":" + std::to_string(line.number)));
      }
    }
    if (rules.size() > kMaxFilterRules) {
      throw BraidError(ErrorCode::kUsage, "more than " + std::to_string(kMaxFilterRules) +
                                              " --exclude/--include rules; fewer, broader "
                                              "patterns do the same ('*.tmp', 'cache/')");
    }
  }
  return rules;
}

}  // namespace braid
