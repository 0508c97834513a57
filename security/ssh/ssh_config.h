#pragma once
/// The part of OpenSSH's client config (~/.ssh/config) that braid honours, so a
/// host alias that works for `ssh` works for braid with the same name, user,
/// port, keys, known_hosts files and timeouts.
///
/// Supported: `Host` lines with several patterns (`*`, `?`, `!negation`,
/// matched case-insensitively against the name as typed); `Match host LIST`
/// (comma-separated patterns, matched against HostName once one is set, as
/// ssh does), `Match originalhost LIST`, several of them on one line (all must
/// match) and `Match all`; `Include FILE...` (relative to ~/.ssh in the user
/// config, to /etc/ssh in the system one; `~/` expanded; glob(3) patterns;
/// nested at most 16 deep). Inside the blocks: `HostName`, `User`, `Port`,
/// `IdentityFile`, `IdentitiesOnly`, `UserKnownHostsFile`,
/// `GlobalKnownHostsFile`, `StrictHostKeyChecking`, `ConnectTimeout`, and
/// `ProxyJump`/`ProxyCommand`, which libssh2 cannot follow: they are reported
/// (proxy_keyword) so the caller runs the system ssh instead. Keywords are
/// case-insensitive; `key value` and `key=value` both work; values may be
/// double-quoted. The first value obtained wins, as in OpenSSH,
/// except `IdentityFile`, which accumulates.
///
/// Not supported, on purpose: any other `Match` criterion (`exec`, `user`,
/// `localuser`, `canonical`, `final`, `!`-negated criteria...) makes its block
/// not match, since those need DNS, a command or the final user, which this
/// parser must not guess; `~user/` is left as written. Every other keyword is
/// ignored, so a full ssh config loads without error.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace braid {

/// StrictHostKeyChecking as written; braid never asks, so kAsk acts as kYes.
enum class StrictHostKeyChecking { kUnset, kYes, kAsk, kAcceptNew, kNo };

/// What the config says about one host. Empty, zero or nullopt means "not set".
struct SshHostConfig {
  std::string hostname;                     ///< HostName, with %h and %% expanded
  std::string user;                         ///< User
  int port = 0;                             ///< Port, 1..65535
  std::vector<std::string> identity_files;  ///< IdentityFile, in order, ~ and %-tokens expanded
  bool identities_only = false;             ///< IdentitiesOnly yes
  /// UserKnownHostsFile, ~ and %-tokens expanded; an empty list is `none`.
  std::optional<std::vector<std::string>> user_known_hosts;
  /// GlobalKnownHostsFile, likewise.
  std::optional<std::vector<std::string>> global_known_hosts;
  StrictHostKeyChecking strict_host_key_checking = StrictHostKeyChecking::kUnset;
  int connect_timeout = 0;  ///< ConnectTimeout in seconds; 0 (or `none`) is not set
  /// "ProxyJump" or "ProxyCommand" when one of them applies (and is not
  /// `none`): libssh2 cannot connect through them.
  std::string proxy_keyword;
};

/// One config file's text and the name used for it in error messages.
struct SshConfigFile {
  std::string_view name;  ///< e.g. "/home/me/.ssh/config"
  std::string_view text;
  bool system = false;  ///< relative Include paths are under /etc/ssh, else ~/.ssh
};

/// A file an Include pattern named, read.
struct IncludedSshConfig {
  std::string name;
  std::string text;
};

/// Expands one absolute Include pattern (glob(3)) and reads the files, in
/// glob's order. Throws BraidError(kUsage) for a file it cannot read.
using SshIncludeReader = std::function<std::vector<IncludedSshConfig>(const std::string& pattern)>;

/// Where `~` and the %-tokens point, and how Include reads files.
struct SshConfigContext {
  std::string_view home;        ///< `~/` and %d
  std::string_view local_user;  ///< %u; left literal if empty
  SshIncludeReader include{};   ///< empty: Include lines are ignored
};

/// Include nesting beyond this is an error (a file that includes itself).
constexpr int kMaxSshConfigIncludeDepth = 16;

/// Longest ConnectTimeout accepted, in seconds (a day, as --connect-timeout).
constexpr int kMaxSshConnectTimeout = 86400;

/// Longest config line accepted; longer means the file is not an ssh config.
constexpr std::size_t kMaxSshConfigLine = std::size_t{16} * 1024;

/// Resolves `host_alias` against the files in order (user config first, then
/// the system one), first value winning across all of them. Tokens in
/// IdentityFile, UserKnownHostsFile and GlobalKnownHostsFile: %d home, %u
/// local user, %h remote host name, %r remote user (config User, else the
/// local user), %p port (config Port, else 22), %n and %k the alias as typed,
/// %%; other tokens stay literal. Throws BraidError(kUsage) naming file and
/// line for an over-long line, an unterminated quote, a bad value (Port,
/// ConnectTimeout, IdentitiesOnly, StrictHostKeyChecking) in a block that
/// applies to this host, or Include nested too deep; garbage elsewhere is
/// ignored.
SshHostConfig ResolveSshConfig(const std::vector<SshConfigFile>& files, std::string_view host_alias,
                               const SshConfigContext& context);

/// One-file convenience form of the above.
SshHostConfig ResolveSshConfig(std::string_view config_text, std::string_view host_alias,
                               std::string_view home);

/// True when `host` matches the OpenSSH pattern (`*`, `?`), ignoring case.
bool MatchSshPattern(std::string_view pattern, std::string_view host);

/// Reads a config file. A missing file is an empty config; an unreadable or
/// absurdly large one throws BraidError(kUsage) naming the path and the fix.
std::string ReadSshConfigFile(const std::string& path);

/// The real SshIncludeReader: glob(3), then ReadSshConfigFile for each match.
std::vector<IncludedSshConfig> ReadIncludedSshConfigs(const std::string& pattern);

/// Reads `home`/.ssh/config and /etc/ssh/ssh_config and resolves `host_alias`
/// (Include read with ReadIncludedSshConfigs when context.include is empty).
SshHostConfig LoadSshHostConfig(std::string_view host_alias, const SshConfigContext& context);

}  // namespace braid
