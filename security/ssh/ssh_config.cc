#include "security/ssh/ssh_config.h"

#include <fcntl.h>
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <array>
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

/// Values for the %-tokens OpenSSH documents; unset ones stay as written.
struct Tokens {
  std::optional<std::string_view> home;         ///< %d
  std::optional<std::string_view> local_user;   ///< %u
  std::optional<std::string_view> remote_host;  ///< %h
  std::optional<std::string_view> remote_user;  ///< %r
  std::optional<std::string_view> port;         ///< %p
  std::optional<std::string_view> alias;        ///< %n and %k: the name as typed
};

/// Only %h, as HostName may use it.
Tokens HostToken(std::string_view host) {
  Tokens tokens;
  tokens.remote_host = host;
  return tokens;
}

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
      case 'n':
      case 'k':
        value = tokens.alias;
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

/// Splits a Match pattern list ("a,b,!c") into its patterns.
std::vector<std::string> SplitCommas(std::string_view list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = list.find(',', start);
    if (comma == std::string_view::npos) comma = list.size();
    out.emplace_back(list.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

/// Values as written, before ~ and %-token expansion.
struct RawConfig {
  std::optional<std::string> hostname;
  std::optional<std::string> user;
  int port = 0;
  std::vector<std::string> identity_files;
  std::optional<bool> identities_only;
  std::optional<std::vector<std::string>> user_known_hosts;  ///< empty: none
  std::optional<std::vector<std::string>> global_known_hosts;
  std::optional<StrictHostKeyChecking> strict;
  std::optional<int> connect_timeout;  ///< 0: none
  std::optional<std::string> proxy;    ///< ProxyJump/ProxyCommand keyword; "" for none
};

/// Where a line came from, for messages.
struct LineRef {
  const SshConfigFile& file;
  std::size_t line_no;
};

[[noreturn]] void ThrowConfigError(const LineRef& at, const std::string& what) {
  throw BraidError(ErrorCode::kUsage, "ssh config " + std::string(at.file.name) + " line " +
                                          std::to_string(at.line_no) + ": " + what +
                                          "; fix that line");
}

int ParsePort(const LineRef& at, const std::string& value) {
  int port = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), port);
  if (ec != std::errc() || ptr != value.data() + value.size() || port < 1 || port > 65535) {
    ThrowConfigError(at, "Port '" + value + "' is not a number from 1 to 65535");
  }
  return port;
}

bool ParseYesNo(const LineRef& at, const std::string& key, const std::string& value) {
  if (EqualsIgnoreCase(value, "yes") || EqualsIgnoreCase(value, "true")) return true;
  if (EqualsIgnoreCase(value, "no") || EqualsIgnoreCase(value, "false")) return false;
  ThrowConfigError(at, key + " '" + value + "' is not yes or no");
}

StrictHostKeyChecking ParseStrict(const LineRef& at, const std::string& value) {
  using S = StrictHostKeyChecking;
  if (EqualsIgnoreCase(value, "yes") || EqualsIgnoreCase(value, "true")) return S::kYes;
  if (EqualsIgnoreCase(value, "ask")) return S::kAsk;
  if (EqualsIgnoreCase(value, "accept-new")) return S::kAcceptNew;
  if (EqualsIgnoreCase(value, "no") || EqualsIgnoreCase(value, "off") ||
      EqualsIgnoreCase(value, "false")) {
    return S::kNo;
  }
  ThrowConfigError(at, "StrictHostKeyChecking '" + value + "' is not yes, ask, accept-new or no");
}

/// OpenSSH's time format: `none`, or numbers each with an optional unit
/// (s, m, h, d, w; seconds without one), summed: "90", "1m30s".
int ParseConnectTimeout(const LineRef& at, const std::string& value) {
  if (EqualsIgnoreCase(value, "none")) return 0;
  long long total = 0;
  std::size_t i = 0;
  while (i < value.size()) {
    long long n = 0;
    const char* begin = value.data() + i;
    auto [ptr, ec] = std::from_chars(begin, value.data() + value.size(), n);
    if (ec != std::errc() || ptr == begin || n < 0 || n > kMaxSshConnectTimeout) break;
    i = static_cast<std::size_t>(ptr - value.data());
    long long unit = 1;
    if (i < value.size()) {
      switch (Lower(value[i])) {
        case 's':
          unit = 1;
          ++i;
          break;
        case 'm':
          unit = 60;
          ++i;
          break;
        case 'h':
          unit = 3600;
          ++i;
          break;
        case 'd':
          unit = 86400;
          ++i;
          break;
        case 'w':
          unit = 7LL * 86400;
          ++i;
          break;
        default:
          unit = 0;
          break;
      }
      if (unit == 0) break;
    }
    total += n * unit;
    if (total > kMaxSshConnectTimeout) break;
    if (i == value.size()) return static_cast<int>(total);
  }
  ThrowConfigError(at, "ConnectTimeout '" + value + "' is not a time from 0 to " +
                           std::to_string(kMaxSshConnectTimeout) + " seconds (such as 10 or 1m)");
}

/// Files an Include may read in one resolution: a file that includes itself
/// twice would otherwise be read 2^16 times before the depth limit stops it.
constexpr int kMaxSshConfigIncludes = 256;

/// Applies the files' settings for one host, first value winning.
class Resolver {
 public:
  Resolver(std::string_view host, const SshConfigContext& context)
      : host_(host), context_(context) {}

  /// Applies one file. Lines before its first Host or Match apply (the file
  /// is read only where it applies at all).
  void ApplyFile(const SshConfigFile& file, int depth);

  const RawConfig& raw() const { return raw_; }

 private:
  bool MatchLineMatches(const std::vector<std::string>& args) const;
  void ApplyInclude(const LineRef& at, const ConfigLine& line, int depth);
  void ApplySetting(const LineRef& at, const ConfigLine& line);

  std::string_view host_;
  const SshConfigContext& context_;
  RawConfig raw_;
  int includes_read_ = 0;
};

/// `Match all`, or host/originalhost criteria that all match; anything else
/// (exec, user, canonical, negated criteria...) does not match.
bool Resolver::MatchLineMatches(const std::vector<std::string>& args) const {
  if (args.size() == 1 && EqualsIgnoreCase(args[0], "all")) return true;
  if (args.empty() || args.size() % 2 != 0) return false;
  // As ssh: `host` sees the HostName once one is set, `originalhost` the alias.
  std::string target(host_);
  if (raw_.hostname) target = ExpandTokens(*raw_.hostname, HostToken(host_));
  for (std::size_t i = 0; i < args.size(); i += 2) {
    const std::vector<std::string> patterns = SplitCommas(args[i + 1]);
    if (EqualsIgnoreCase(args[i], "host")) {
      if (!HostLineMatches(patterns, target)) return false;
    } else if (EqualsIgnoreCase(args[i], "originalhost")) {
      if (!HostLineMatches(patterns, host_)) return false;
    } else {
      return false;
    }
  }
  return true;
}

void Resolver::ApplyInclude(const LineRef& at, const ConfigLine& line, int depth) {
  if (line.unterminated_quote) ThrowConfigError(at, "unterminated quote");
  if (line.args.empty()) ThrowConfigError(at, "Include has no value");
  if (!context_.include) return;
  if (depth >= kMaxSshConfigIncludeDepth) {
    ThrowConfigError(at, "Include is nested more than " +
                             std::to_string(kMaxSshConfigIncludeDepth) +
                             " deep (does a file include itself?)");
  }
  for (const std::string& arg : line.args) {
    if (arg.empty() || HasControlChar(arg)) {
      ThrowConfigError(at, "Include has an empty name or a control character");
    }
    std::string pattern = ExpandTilde(arg, context_.home);
    if (pattern[0] != '/') {
      std::string base =
          at.file.system ? std::string("/etc/ssh") : ExpandTilde("~/.ssh", context_.home);
      base += '/';
      pattern = base + pattern;
    }
    const std::vector<IncludedSshConfig> found = context_.include(pattern);
    for (const IncludedSshConfig& inc : found) {
      if (++includes_read_ > kMaxSshConfigIncludes) {
        ThrowConfigError(at, "Include reads more than " + std::to_string(kMaxSshConfigIncludes) +
                                 " files (does a file include itself?)");
      }
      ApplyFile(SshConfigFile{inc.name, inc.text, at.file.system}, depth + 1);
    }
  }
}

void Resolver::ApplyFile(const SshConfigFile& file, int depth) {
  bool active = true;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  const std::string_view text = file.text;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    const LineRef at{file, ++line_no};
    if (line.size() > kMaxSshConfigLine) {
      ThrowConfigError(at, "line is longer than " + std::to_string(kMaxSshConfigLine) + " bytes");
    }
    const ConfigLine parsed = SplitLine(line);
    if (parsed.keyword.empty() || parsed.keyword[0] == '#') continue;
    const std::string& key = parsed.keyword;
    if (EqualsIgnoreCase(key, "host")) {
      active = !parsed.unterminated_quote && HostLineMatches(parsed.args, host_);
    } else if (EqualsIgnoreCase(key, "match")) {
      active = !parsed.unterminated_quote && MatchLineMatches(parsed.args);
    } else if (active && EqualsIgnoreCase(key, "include")) {
      ApplyInclude(at, parsed, depth);
    } else if (active) {
      ApplySetting(at, parsed);
    }
  }
}

/// The keywords braid reads; every other one is ignored.
constexpr std::array<std::string_view, 11> kKeywords{"hostname",
                                                     "user",
                                                     "port",
                                                     "identityfile",
                                                     "identitiesonly",
                                                     "userknownhostsfile",
                                                     "globalknownhostsfile",
                                                     "stricthostkeychecking",
                                                     "connecttimeout",
                                                     "proxyjump",
                                                     "proxycommand"};

/// The arguments of a file-list keyword; `none` alone is the empty list.
std::vector<std::string> FileList(const LineRef& at, const ConfigLine& line) {
  for (const std::string& arg : line.args) {
    if (arg.empty() || HasControlChar(arg)) {
      ThrowConfigError(at, line.keyword + " has an empty name or a control character");
    }
  }
  if (line.args.size() == 1 && EqualsIgnoreCase(line.args[0], "none")) return {};
  return line.args;
}

template <typename T>
void SetOnce(std::optional<T>& slot, T value) {
  if (!slot) slot = std::move(value);
}

void Resolver::ApplySetting(const LineRef& at, const ConfigLine& line) {
  const std::string& key = line.keyword;
  auto is = [&key](std::string_view name) { return EqualsIgnoreCase(key, name); };
  if (std::none_of(kKeywords.begin(), kKeywords.end(), is)) return;
  if (line.unterminated_quote) ThrowConfigError(at, "unterminated quote");
  if (line.args.empty()) ThrowConfigError(at, key + " has no value");
  const std::string& value = line.args[0];
  if (is("proxycommand") || is("proxyjump")) {
    SetOnce(raw_.proxy, EqualsIgnoreCase(value, "none")
                            ? std::string()
                            : std::string(is("proxyjump") ? "ProxyJump" : "ProxyCommand"));
    return;
  }
  if (is("userknownhostsfile")) return SetOnce(raw_.user_known_hosts, FileList(at, line));
  if (is("globalknownhostsfile")) return SetOnce(raw_.global_known_hosts, FileList(at, line));
  if (value.empty() || HasControlChar(value)) {
    ThrowConfigError(at, key + " has an empty value or a control character");
  }
  if (is("hostname")) {
    SetOnce(raw_.hostname, value);
  } else if (is("user")) {
    SetOnce(raw_.user, value);
  } else if (is("port")) {
    const int port = ParsePort(at, value);
    if (raw_.port == 0) raw_.port = port;
  } else if (is("identitiesonly")) {
    SetOnce(raw_.identities_only, ParseYesNo(at, key, value));
  } else if (is("stricthostkeychecking")) {
    SetOnce(raw_.strict, ParseStrict(at, value));
  } else if (is("connecttimeout")) {
    SetOnce(raw_.connect_timeout, ParseConnectTimeout(at, value));
  } else if (!EqualsIgnoreCase(value, "none")) {  // IdentityFile
    raw_.identity_files.push_back(value);
  }
}

/// ~ and %-tokens expanded in each path; one that expands to nothing is
/// dropped ("%h" for an empty alias names no file).
std::vector<std::string> ExpandPaths(const std::vector<std::string>& paths, const Tokens& tokens,
                                     std::string_view home) {
  std::vector<std::string> out;
  for (const std::string& f : paths) {
    std::string path = ExpandTokens(ExpandTilde(f, home), tokens);
    if (!path.empty()) out.push_back(std::move(path));
  }
  return out;
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
  Resolver resolver(host_alias, context);
  for (const SshConfigFile& file : files) {
    resolver.ApplyFile(file, 0);
  }
  const RawConfig& raw = resolver.raw();

  SshHostConfig out;
  if (raw.hostname) {
    out.hostname = ExpandTokens(*raw.hostname, HostToken(host_alias));
  }
  out.user = raw.user.value_or("");
  out.port = raw.port;
  out.identities_only = raw.identities_only.value_or(false);
  out.strict_host_key_checking = raw.strict.value_or(StrictHostKeyChecking::kUnset);
  out.connect_timeout = raw.connect_timeout.value_or(0);
  out.proxy_keyword = raw.proxy.value_or("");
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
  tokens.alias = host_alias;
  out.identity_files = ExpandPaths(raw.identity_files, tokens, context.home);
  if (raw.user_known_hosts) {
    out.user_known_hosts = ExpandPaths(*raw.user_known_hosts, tokens, context.home);
  }
  if (raw.global_known_hosts) {
    out.global_known_hosts = ExpandPaths(*raw.global_known_hosts, tokens, context.home);
  }
  return out;
}

SshHostConfig ResolveSshConfig(std::string_view config_text, std::string_view host_alias,
                               std::string_view home) {
  return ResolveSshConfig({SshConfigFile{"~/.ssh/config", config_text, false}}, host_alias,
                          SshConfigContext{home, "", nullptr});
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

std::vector<IncludedSshConfig> ReadIncludedSshConfigs(const std::string& pattern) {
  glob_t found{};
  const int rc = ::glob(pattern.c_str(), 0, nullptr, &found);
  std::vector<std::string> paths;
  if (rc == 0) paths.assign(found.gl_pathv, found.gl_pathv + found.gl_pathc);
  ::globfree(&found);
  if (rc == GLOB_NOSPACE) {
    throw BraidError(ErrorCode::kUsage,
                     "ssh config Include " + pattern + " matches too many files");
  }
  std::vector<IncludedSshConfig> out;
  for (std::string& path : paths) {
    std::string text = ReadSshConfigFile(path);
    out.push_back({std::move(path), std::move(text)});
  }
  return out;
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
  SshConfigContext with_include = context;
  if (!with_include.include) with_include.include = ReadIncludedSshConfigs;
  return ResolveSshConfig({{user_path, user_text, false}, {system_path, system_text, true}},
                          host_alias, with_include);
}

}  // namespace braid
