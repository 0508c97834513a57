#include "source/path_filter.h"

#include <fnmatch.h>

#include <algorithm>

namespace braid {
namespace {

/// Where the bracket expression that opens at `open` ends (the index of its
/// ']'), or npos when it is not closed. As fnmatch reads one: a '!' or '^'
/// first negates, a ']' right after that is a member, and a class such as
/// [:digit:] inside it holds its own ']'.
std::size_t SetEnd(std::string_view pattern, std::size_t open) {
  std::size_t i = open + 1;
  if (i < pattern.size() && (pattern[i] == '!' || pattern[i] == '^')) ++i;
  if (i < pattern.size() && pattern[i] == ']') ++i;
  for (; i < pattern.size(); ++i) {
    if (pattern[i] == '[' && i + 1 < pattern.size() &&
        (pattern[i + 1] == ':' || pattern[i + 1] == '.' || pattern[i + 1] == '=')) {
      const char kind[3] = {pattern[i + 1], ']', '\0'};
      const std::size_t close = pattern.find(kind, i + 2);
      if (close != std::string_view::npos) i = close + 1;
      continue;
    }
    if (pattern[i] == ']') return i;
  }
  return std::string_view::npos;
}

bool InSet(const std::string& set, char c) {
  const char text[2] = {c, '\0'};
  return ::fnmatch(set.c_str(), text, 0) == 0;
}

}  // namespace

PathFilter::PathFilter(const std::vector<PathFilterRule>& rules) {
  rules_.reserve(rules.size());
  for (const PathFilterRule& rule : rules) rules_.push_back(Compile(rule));
}

PathFilter::Rule PathFilter::Compile(const PathFilterRule& given) {
  Rule rule;
  rule.include = given.include;
  std::string_view p = given.pattern;
  if (!p.empty() && p.back() == '/') {
    rule.directories_only = true;
    while (!p.empty() && p.back() == '/') p.remove_suffix(1);
  }
  if (!p.empty() && p.front() == '/') {
    rule.anchored = true;
    while (!p.empty() && p.front() == '/') p.remove_prefix(1);
  }
  rule.last_name_only = !rule.anchored && p.find('/') == std::string_view::npos &&
                        p.find("**") == std::string_view::npos;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '*') {
      const bool any_path = i + 1 < p.size() && p[i + 1] == '*';
      while (i + 1 < p.size() && p[i + 1] == '*') ++i;
      rule.tokens.push_back({any_path ? TokenKind::kAnyPath : TokenKind::kStar});
    } else if (c == '?') {
      rule.tokens.push_back({TokenKind::kAnyChar});
    } else if (c == '[' && SetEnd(p, i) != std::string_view::npos) {
      const std::size_t end = SetEnd(p, i);
      rule.tokens.push_back({TokenKind::kSet, 0, std::string(p.substr(i, end - i + 1))});
      i = end;
    } else if (c == '\\' && i + 1 < p.size()) {
      rule.tokens.push_back({TokenKind::kLiteral, p[++i]});
    } else {
      rule.tokens.push_back({TokenKind::kLiteral, c});
    }
  }
  return rule;
}

/// A table over the path's positions, one token at a time: reached[j] says
/// the tokens so far match some start of the path up to j. Linear in the
/// tokens times the path, whatever the pattern: no backtracking to blow up.
bool PathFilter::Matches(const Rule& rule, std::string_view path) {
  if (rule.last_name_only) {
    const std::size_t slash = path.find_last_of('/');
    if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  }
  const std::size_t n = path.size();
  // Asked for every rule and every entry of a tree: the two rows of the
  // match are kept between calls rather than allocated each time.
  thread_local std::vector<char> reached;
  thread_local std::vector<char> next;
  reached.assign(n + 1, 0);
  next.assign(n + 1, 0);
  reached[0] = 1;
  if (!rule.anchored && !rule.last_name_only) {
    for (std::size_t j = 0; j < n; ++j) reached[j + 1] = path[j] == '/';
  }
  for (const Token& token : rule.tokens) {
    std::fill(next.begin(), next.end(), 0);
    switch (token.kind) {
      case TokenKind::kLiteral:
        for (std::size_t j = 0; j < n; ++j) next[j + 1] = reached[j] && path[j] == token.literal;
        break;
      case TokenKind::kAnyChar:
        for (std::size_t j = 0; j < n; ++j) next[j + 1] = reached[j] && path[j] != '/';
        break;
      case TokenKind::kSet:
        for (std::size_t j = 0; j < n; ++j) {
          next[j + 1] = reached[j] && path[j] != '/' && InSet(token.set, path[j]);
        }
        break;
      case TokenKind::kStar:
        next[0] = reached[0];
        for (std::size_t j = 1; j <= n; ++j) {
          next[j] = reached[j] || (next[j - 1] && path[j - 1] != '/');
        }
        break;
      case TokenKind::kAnyPath:
        next[0] = reached[0];
        for (std::size_t j = 1; j <= n; ++j) next[j] = reached[j] || next[j - 1];
        break;
    }
    reached.swap(next);
    if (std::find(reached.begin(), reached.end(), 1) == reached.end()) return false;
  }
  return reached[n] != 0;
}

bool PathFilter::Excludes(std::string_view path, bool is_directory) const {
  for (const Rule& rule : rules_) {
    if (rule.directories_only && !is_directory) continue;
    if (Matches(rule, path)) return !rule.include;
  }
  return false;
}

}  // namespace braid
