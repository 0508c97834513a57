#pragma once
/// Which entries of a directory SRC the --exclude / --include rules leave out.
/// Pure: it sees a path and whether it is a directory, nothing of the disk.

#include <string>
#include <string_view>
#include <vector>

#include "braid/path_filter_rule.h"

namespace braid {

/// The rules as rsync reads its common cases, first match deciding:
/// - a trailing '/' makes a rule match directories only;
/// - a leading '/' anchors it: it matches the entry's whole path, which starts
///   with the SRC's own name (the path the entry gets under DST);
/// - otherwise it matches the path's end: the whole path, or what follows any
///   '/' in it (so a pattern without '/' matches the last name);
/// - `*` matches any run of characters but '/', `**` any run at all, `?` one
///   character but '/', `[...]` one of a set as in fnmatch(3), `\c` the
///   character c itself.
/// Any text is a pattern (an unclosed '[' is a literal): rules come from the
/// network too, and a match costs at most pattern length times path length.
class PathFilter {
 public:
  explicit PathFilter(const std::vector<PathFilterRule>& rules);

  /// True when the first rule that matches `path` is an --exclude. An
  /// excluded directory is not entered, so nothing below it is listed.
  bool Excludes(std::string_view path, bool is_directory) const;
  bool empty() const { return rules_.empty(); }

 private:
  enum class TokenKind { kLiteral, kAnyChar, kSet, kStar, kAnyPath };
  struct Token {
    TokenKind kind;
    char literal = 0;
    std::string set{};  ///< for kSet: the bracket expression as written, for fnmatch
  };
  struct Rule {
    bool include = false;
    bool directories_only = false;
    bool anchored = false;
    bool last_name_only = false;  ///< no '/' and no `**`: only the last name can match
    std::vector<Token> tokens;
  };

  static Rule Compile(const PathFilterRule& rule);
  static bool Matches(const Rule& rule, std::string_view path);

  std::vector<Rule> rules_;
};

}  // namespace braid
