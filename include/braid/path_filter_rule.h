#pragma once
/// --exclude / --include: the rules that filter what a directory SRC holds,
/// in the order given. Header-only vocabulary, so Options and SourceOpen can
/// carry the rules; the source matches them (source/path_filter).

#include <cstddef>
#include <string>

namespace braid {

/// More rules than this are refused (a generated list that long is better
/// written as a few patterns, and each entry of a tree is matched against all).
constexpr std::size_t kMaxFilterRules = 1024;
/// The longest pattern: a path's longest.
constexpr std::size_t kMaxFilterPatternLength = 4096;

struct PathFilterRule {
  bool include = false;  ///< --include; else --exclude
  std::string pattern;   ///< rsync's glob syntax (docs/braid.1, FILTERS)

  bool operator==(const PathFilterRule&) const = default;
};

}  // namespace braid
