#include "security/ssh/ssh_config.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>
#include <utility>

#include "braid/error.h"

namespace braid {
namespace {

/// Config files are a few KiB; anything this big is not one.
constexpr std::size_t kMaxSshConfigFile = std::size_t{4} * 1024 * 1024;

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) {
      return false;
    }
  }
  return true;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/// Values end up in file names and libc calls, so control bytes are refused.
bool HasControlChar(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return true;
    }
  }
  return false;
}

/// One line split into a keyword and its arguments, quotes removed.
struct ConfigLine {
  std::string keyword;
  std::vector<std::string> args;
  bool unterminated_quote = false;
};

/// Splits like OpenSSH: `key value...` or `key=value...`; quoted arguments may
/// hold spaces; an unquoted argument starting with '#' starts a comment.
ConfigLine SplitLine(std::string_view line) {
  ConfigLine out;
  std::size_t i = 0;
  while (i < line.size() && IsSpace(line[i])) {
    ++i;
  }
  std::size_t start = i;
  while (i < line.size() && !IsSpace(line[i]) && line[i] != '=') {
    ++i;
  }
  out.keyword.assign(line.substr(start, i - start));
  while (i < line.size() && IsSpace(line[i])) {
    ++i;
  }
  if (i < line.size() && line[i] == '=') {
    ++i;
  }
  while (i < line.size()) {
    while (i < line.size() && IsSpace(line[i])) {
      ++i;
    }
    if (i >= line.size()) {
      break;
    }
    if (line[i] == '#') {
      break;
    }
    std::string arg;
    if (line[i] == '"' || line[i] == '\'') {
      char quote = line[i++];
      std::size_t close = line.find(quote, i);
      if (close == std::string_view::npos) {
        out.unterminated_quote = true;
        return out;
      }
      arg.assign(line.substr(i, close - i));
      i = close + 1;
    } else {
      start = i;
      while (i < line.size() && !IsSpace(line[i])) {
        ++i;
      }
      arg.assign(line.substr(start, i - start));
    }
    out.args.push_back(std::move(arg));
  }
  return out;
}

/// OpenSSH Host semantics: some positive pattern matches and no negated one does.
bool HostLineMatches(const std::vector<std::string>& patterns, std::string_view host) {
  bool matched = false;
  for (const std::string& p : patterns) {
    if (!p.empty() && p[0] == '!') {
      if (MatchSshPattern(std::string_view(p).substr(1), host)) {
        return false;
      }
    } else if (MatchSshPattern(p, host)) {
      matched = true;
    }
  }
  return matched;
}

/// Values as written, before ~ and %-token expansion.
struct RawConfig {
  std::optional<std::string> hostname;
  std::optional<std::string> user;
  int port = 0;
  std::vector<std::string> identity_files;
};

[[noreturn]] void ThrowConfigError(const SshConfigFile& file, std::size_t line_no,
                                   const std::string& what) {
  throw BraidError(ErrorCode::kUsage, "ssh config " + std::string(file.name) + " line " +
                                          std::to_string(line_no) + ": " + what +
                                          "; fix that line");
}

/// Applies one file's settings for `host` to `raw`; values already present win.
void ApplyFile(const SshConfigFile& file, std::string_view host, RawConfig& raw) {
  bool active = true;  // lines before the first Host apply to every host
  std::size_t line_no = 0;
  std::size_t pos = 0;
  std::string_view text = file.text;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.size() > kMaxSshConfigLine) {
      ThrowConfigError(file, line_no,
                       "line is longer than " + std::to_string(kMaxSshConfigLine) + " bytes");
    }
    ConfigLine parsed = SplitLine(line);
    if (parsed.keyword.empty() || parsed.keyword[0] == '#') {
      continue;
    }
    const std::string& key = parsed.keyword;
    if (EqualsIgnoreCase(key, "host")) {
      active = !parsed.unterminated_quote && HostLineMatches(parsed.args, host);
      continue;
    }
    if (EqualsIgnoreCase(key, "match")) {
      active = parsed.args.size() == 1 && EqualsIgnoreCase(parsed.args[0], "all");
      continue;
    }
    bool wanted = EqualsIgnoreCase(key, "hostname") || EqualsIgnoreCase(key, "user") ||
                  EqualsIgnoreCase(key, "port") || EqualsIgnoreCase(key, "identityfile");
    if (!active || !wanted) {
      continue;
    }
    if (parsed.unterminated_quote) {
      ThrowConfigError(file, line_no, "unterminated quote");
    }
    if (parsed.args.empty()) {
      ThrowConfigError(file, line_no, key + " has no value");
    }
    const std::string& value = parsed.args[0];
    if (value.empty() || HasControlChar(value)) {
      ThrowConfigError(file, line_no, key + " has an empty value or a control character");
    }
    if (EqualsIgnoreCase(key, "hostname")) {
      if (!raw.hostname) {
        raw.hostname = value;
      }
    } else if (EqualsIgnoreCase(key, "user")) {
      if (!raw.user) {
        raw.user = value;
      }
    } else if (EqualsIgnoreCase(key, "port")) {
      int port = 0;
      auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), port);
      if (ec != std::errc() || ptr != value.data() + value.size() || port < 1 || port > 65535) {
        ThrowConfigError(file, line_no, "Port '" + value + "' is not a number from 1 to 65535");
      }
      if (raw.port == 0) {
        raw.port = port;
      }
    } else if (!EqualsIgnoreCase(value, "none")) {  // IdentityFile
      raw.identity_files.push_back(value);
    }
  }
}

/// Values for the %-tokens OpenSSH documents; unset ones stay as written.
struct Tokens {
  std::optional<std::string_view> home;         ///< %d
  std::optional<std::string_view> local_user;   ///< %u
  std::optional<std::string_view> remote_host;  ///< %h
  std::optional<std::string_view> remote_user;  ///< %r
  std::optional<std::string_view> port;         ///< %p
};

std::string ExpandTokens(std::string_view in, const Tokens& tokens) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%' || i + 1 >= in.size()) {
      out += in[i];
      continue;
    }
    std::optional<std::string_view> value;
    switch (in[i + 1]) {
      case '%':
        value = "%";
        break;
      case 'd':
        value = tokens.home;
        break;
      case 'u':
        value = tokens.local_user;
        break;
      case 'h':
        value = tokens.remote_host;
        break;
      case 'r':
        value = tokens.remote_user;
        break;
      case 'p':
        value = tokens.port;
        break;
      default:
        break;
    }
    if (value) {
      out += *value;
      ++i;
    } else {
      out += '%';
    }
  }
  return out;
}

std::string ExpandTilde(std::string_view path, std::string_view home) {
  if (path == "~") {
    return std::string(home);
  }
  if (path.size() >= 2 && path[0] == '~' && path[1] == '/') {
    std::string out(home);
    if (!out.empty() && out.back() == '/') {
      out.pop_back();
    }
    out += path.substr(1);
    return out;
  }
  return std::string(path);
}

}  // namespace

bool MatchSshPattern(std::string_view pattern, std::string_view host) {
  // Iterative glob with one backtrack point: linear memory, O(n*m) worst case,
  // so a hostile pattern like "*a*a*a*b" cannot blow the stack.
  std::size_t p = 0;
  std::size_t h = 0;
  std::size_t star = std::string_view::npos;
  std::size_t mark = 0;
  while (h < host.size()) {
    // '*' first: it is a wildcard even where the host has a literal '*'.
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = h;
    } else if (p < pattern.size() && (pattern[p] == '?' || Lower(pattern[p]) == Lower(host[h]))) {
      ++p;
      ++h;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      h = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') {
    ++p;
  }
  return p == pattern.size();
}

SshHostConfig ResolveSshConfig(const std::vector<SshConfigFile>& files, std::string_view host_alias,
                               const SshConfigContext& context) {
  RawConfig raw;
  for (const SshConfigFile& file : files) {
    ApplyFile(file, host_alias, raw);
  }

  SshHostConfig out;
  if (raw.hostname) {
    Tokens tokens;
    tokens.remote_host = host_alias;
    out.hostname = ExpandTokens(*raw.hostname, tokens);
  }
  out.user = raw.user.value_or("");
  out.port = raw.port;
  const std::string port = std::to_string(out.port == 0 ? 22 : out.port);
  Tokens tokens;
  tokens.home = context.home;
  if (!context.local_user.empty()) {
    tokens.local_user = context.local_user;
  }
  tokens.remote_host = out.hostname.empty() ? host_alias : std::string_view(out.hostname);
  if (!out.user.empty() || !context.local_user.empty()) {
    tokens.remote_user = out.user.empty() ? context.local_user : std::string_view(out.user);
  }
  tokens.port = port;
  for (const std::string& f : raw.identity_files) {
    // "%h" for an empty alias names no file: there is nothing to try.
    std::string path = ExpandTokens(ExpandTilde(f, context.home), tokens);
    if (!path.empty()) out.identity_files.push_back(std::move(path));
  }
  return out;
}

SshHostConfig ResolveSshConfig(std::string_view config_text, std::string_view host_alias,
                               std::string_view home) {
  return ResolveSshConfig({SshConfigFile{"~/.ssh/config", config_text}}, host_alias,
                          SshConfigContext{home, ""});
}

std::string ReadSshConfigFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return {};
    }
    throw BraidError(ErrorCode::kUsage, "cannot read ssh config " + path + ": " +
                                            std::strerror(errno) +
                                            "; fix its permissions or remove it");
  }
  std::string text;
  char buf[16 * 1024];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      int err = errno;
      ::close(fd);
      throw BraidError(ErrorCode::kUsage, "cannot read ssh config " + path + ": " +
                                              std::strerror(err) +
                                              "; fix its permissions or remove it");
    }
    if (n == 0) {
      break;
    }
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > kMaxSshConfigFile) {
      ::close(fd);
      throw BraidError(ErrorCode::kUsage, "ssh config " + path + " is larger than " +
                                              std::to_string(kMaxSshConfigFile >> 20) +
                                              " MiB, so it is not an ssh config; remove it");
    }
  }
  ::close(fd);
  return text;
}

SshHostConfig LoadSshHostConfig(std::string_view host_alias, const SshConfigContext& context) {
  std::string user_path;
  std::string user_text;
  if (!context.home.empty()) {
    user_path = ExpandTilde("~/.ssh/config", context.home);
    user_text = ReadSshConfigFile(user_path);
  }
  const std::string system_path = "/etc/ssh/ssh_config";
  std::string system_text = ReadSshConfigFile(system_path);
  return ResolveSshConfig({{user_path, user_text}, {system_path, system_text}}, host_alias,
                          context);
}

}  // namespace braid
