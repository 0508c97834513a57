#pragma once
/// The part of OpenSSH's client config (~/.ssh/config) that braid honours, so a
/// host alias that works for `ssh` works for braid with the same name, user,
/// port and keys.
///
/// Supported: `Host` lines with several patterns (`*`, `?`, `!negation`,
/// matched case-insensitively), and inside them `HostName`, `User`, `Port`,
/// `IdentityFile`. Keywords are case-insensitive; `key value` and `key=value`
/// both work; values may be double-quoted. The first value obtained wins, as in
/// OpenSSH, except `IdentityFile`, which accumulates.
///
/// Not supported, on purpose: `Match` blocks are treated as not matching (their
/// criteria need DNS, exec or the final user, which this parser must not guess),
/// except a bare `Match all`; `Include` is ignored; `~user/` is left as written.
/// Every other keyword is ignored, so a full ssh config loads without error.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace braid {

/// What the config says about one host. Empty or zero means "not set".
struct SshHostConfig {
  std::string hostname;                     ///< HostName, with %h and %% expanded
  std::string user;                         ///< User
  int port = 0;                             ///< Port, 1..65535
  std::vector<std::string> identity_files;  ///< IdentityFile, in order, ~ and %-tokens expanded
};

/// One config file's text and the name used for it in error messages.
struct SshConfigFile {
  std::string_view name;  ///< e.g. "/home/me/.ssh/config"
  std::string_view text;
};

/// Where `~` and the %-tokens point.
struct SshConfigContext {
  std::string_view home;        ///< `~/` and %d
  std::string_view local_user;  ///< %u; left literal if empty
};

/// Longest config line accepted; longer means the file is not an ssh config.
constexpr std::size_t kMaxSshConfigLine = std::size_t{16} * 1024;

/// Resolves `host_alias` against the files in order (user config first, then
/// the system one), first value winning across all of them. Tokens in
/// IdentityFile: %d home, %u local user, %h remote host name, %r remote user
/// (config User, else the local user), %p port (config Port, else 22), %%;
/// other tokens stay literal. Throws BraidError(kUsage) naming file and line
/// for an over-long line, an unterminated quote, or a bad Port in a block that
/// applies to this host; garbage elsewhere is ignored.
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

/// Reads `home`/.ssh/config and /etc/ssh/ssh_config and resolves `host_alias`.
SshHostConfig LoadSshHostConfig(std::string_view host_alias, const SshConfigContext& context);

}  // namespace braid
