#pragma once
/// --exclude, --include, --exclude-from and --include-from: the rules they
/// give, in the order they were given (the first that matches decides).

#include <string>
#include <vector>

#include "braid/path_filter_rule.h"

namespace braid {

/// One of the four options as it was given.
struct GivenFilter {
  enum class Kind { kExclude, kInclude, kExcludeFrom, kIncludeFrom };
  Kind kind = Kind::kExclude;
  std::string value;  ///< a pattern, or for the -from options a file ("-": stdin)
};

/// The rules, a -from file's lines in its place (ParseListLines: one a line,
/// '#' and ';' lines skipped). Throws BraidError(kUsage) naming the option (and
/// file and line) for an empty pattern, one that is only slashes, one longer
/// than kMaxFilterPatternLength, or more than kMaxFilterRules rules.
std::vector<PathFilterRule> CollectFilterRules(const std::vector<GivenFilter>& given);

}  // namespace braid
