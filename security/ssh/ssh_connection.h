#pragma once
/// The ssh control channel: one libssh2 session to one host, which execs
/// `braid --serve` and carries the control protocol over the channel's stdio.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "braid/byte_stream.h"
#include "security/ssh/ssh_note.h"

namespace braid {

/// What the user asked for; ~/.ssh/config fills in what is left empty.
struct SshTarget {
  std::string host;                         ///< as typed: alias, name or literal address
  std::string user;                         ///< empty: config User, else the local user
  int port = 0;                             ///< 0: config Port, else 22
  std::vector<std::string> identity_files;  ///< -i; tried before config and defaults
  bool accept_new_host_key = false;         ///< record an unknown (never a changed) key
  std::string home;                         ///< $HOME, else the passwd entry
  /// Bounds the TCP connect and, separately, each step of the ssh setup
  /// (handshake, host key, authentication). nullopt (--connect-timeout not
  /// given): the config's ConnectTimeout, else 30 s.
  std::optional<std::chrono::milliseconds> connect_timeout;
  int verbose = 0;  ///< -v: say which config settings braid reads differently from ssh
  /// -v: the host key and the key that logged in; -vv: each step of the setup.
  SshNote note;
};

/// What the ssh config asks of a host that libssh2 cannot do, so the system
/// ssh must connect instead (as `-S ssh` would).
struct SystemSshNeed {
  std::string keyword;  ///< "ProxyJump" or "ProxyCommand"; "" when libssh2 will do
  /// The config braid read, for `ssh -F`, when it is not the one ssh reads
  /// itself (HOME is not the passwd entry's home); "" otherwise.
  std::string config_file;
};

/// Reads the ssh config for `target.host` (as Open does) and says whether it
/// needs the system ssh. Throws BraidError(kUsage) for a broken config.
SystemSshNeed NeedsSystemSsh(const SshTarget& target);

class SshConnection {
 public:
  /// Connects, verifies the host key, authenticates. Throws BraidError with
  /// kHostUnreachable, kHostKeyUnknown, kHostKeyChanged or kAuthRefused, and a
  /// message naming the host (and, for keys, the SHA256 fingerprint and the fix).
  static std::unique_ptr<SshConnection> Open(const SshTarget& target);
  virtual ~SshConnection() = default;

  /// Runs `command` on the host. The returned channel owns a reference to the
  /// session, so it may outlive this object.
  virtual std::unique_ptr<ServerChannel> Exec(const std::string& command, StderrSink on_stderr) = 0;
  /// The host name used in messages (the alias as typed).
  virtual std::string host() const = 0;
};

}  // namespace braid
