#include "session/remote_path.h"

#include <fnmatch.h>
#include <glob.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

namespace braid {

std::optional<TildePrefix> SplitTilde(std::string_view path) {
  if (path.empty() || path.front() != '~') return std::nullopt;
  const std::size_t slash = path.find('/');
  const std::size_t user_end = slash == std::string_view::npos ? path.size() : slash;
  return TildePrefix{std::string(path.substr(1, user_end - 1)), std::string(path.substr(user_end))};
}

bool HasGlobMagic(std::string_view path) {
  for (std::size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '\\') {
      ++i;  // the next character is taken literally
    } else if (c == '*' || c == '?' || c == '[') {
      return true;
    }
  }
  return false;
}

std::string LastComponent(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  const std::size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

bool MatchesLastComponent(std::string_view pattern, const std::string& name) {
  if (name.empty() || name == "." || name == "..") return false;
  const std::string last = LastComponent(pattern);
  return name == last || ::fnmatch(last.c_str(), name.c_str(), FNM_PERIOD) == 0;
}

namespace {

/// The home of `user` from the passwd database; nullopt when there is none.
std::optional<std::string> PasswdHome(const std::string& user) {
  passwd pw{};
  passwd* found = nullptr;
  std::string buf(16384, '\0');
  const int rc = user.empty() ? ::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found)
                              : ::getpwnam_r(user.c_str(), &pw, buf.data(), buf.size(), &found);
  if (rc != 0 || found == nullptr || pw.pw_dir == nullptr) return std::nullopt;
  return std::string(pw.pw_dir);
}

}  // namespace

std::optional<std::string> ExpandTilde(const std::string& path) {
  const std::optional<TildePrefix> tilde = SplitTilde(path);
  if (!tilde) return path;
  std::optional<std::string> home;
  if (tilde->user.empty()) {
    const char* env = std::getenv("HOME");
    if (env != nullptr && *env != '\0') home = env;
  }
  if (!home) home = PasswdHome(tilde->user);
  if (!home) return std::nullopt;
  // "~/x" of a home "/" is "/x", not "//x".
  if (home->size() > 1 && home->back() == '/') home->pop_back();
  if (*home == "/" && !tilde->rest.empty()) return tilde->rest;
  return *home + tilde->rest;
}

std::vector<std::string> GlobMatches(const std::string& pattern) {
  glob_t found{};
  std::vector<std::string> matches;
  // No GLOB_NOCHECK (no match is the caller's clear error), no GLOB_BRACE or
  // GLOB_TILDE: the pattern means what glob(3) alone makes of it.
  if (::glob(pattern.c_str(), 0, nullptr, &found) == 0) {
    for (std::size_t i = 0; i < found.gl_pathc; ++i) {
      std::string match = found.gl_pathv[i];
      const std::string name = LastComponent(match);
      if (name != "." && name != "..") matches.push_back(std::move(match));
    }
  }
  ::globfree(&found);
  return matches;
}

std::string AbsoluteForMessage(const std::string& path) {
  if (!path.empty() && path.front() == '/') return path;
  char* cwd = ::getcwd(nullptr, 0);
  if (cwd == nullptr) return path;
  std::string out = cwd;
  std::free(cwd);
  if (path.empty() || path == ".") return out;
  return (out == "/" ? "" : out) + "/" + (path.rfind("./", 0) == 0 ? path.substr(2) : path);
}

}  // namespace braid
