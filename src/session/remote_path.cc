#include "session/remote_path.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "braid/static_executable.h"

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

/// The sixth field of a passwd line ("name:x:uid:gid:gecos:home:shell").
std::optional<std::string> HomeField(const std::string& line) {
  std::size_t start = 0;
  for (int field = 0; field < 5; ++field) {
    start = line.find(':', start);
    if (start == std::string::npos) return std::nullopt;
    ++start;
  }
  const std::size_t end = line.find(':', start);
  if (end == std::string::npos || end == start) return std::nullopt;
  return line.substr(start, end - start);
}

/// The home of `user` ("": ours) as the host's `getent passwd` tells it, for
/// the static braid (braid/static_executable.h). nullopt when there is no
/// getent (an empty root) or no such user.
std::optional<std::string> GetentHome(const std::string& user) {
  const std::string name = user.empty() ? std::to_string(::getuid()) : user;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  const char* argv[] = {"getent", "passwd", "--", name.c_str(), nullptr};
  pid_t pid = -1;
  const int rc =
      ::posix_spawnp(&pid, "getent", &actions, nullptr, const_cast<char**>(argv), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  std::string line;
  char buf[512];
  for (ssize_t n; rc == 0 && (n = ::read(out[0], buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || line.size() > 65536) break;
    line.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  if (rc != 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    return std::nullopt;
  }
  return HomeField(line.substr(0, line.find('\n')));
}

/// The home of `user` from the passwd database; nullopt when there is none.
std::optional<std::string> PasswdHome(const std::string& user) {
  if (IsStaticExecutable()) return GetentHome(user);
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
