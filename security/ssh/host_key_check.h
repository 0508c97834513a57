#pragma once
/// Host key verification against OpenSSH known_hosts files, with OpenSSH's
/// rules: a key for `host` (port 22) or `[host]:port` must match; an unknown
/// key is refused unless the user accepts new keys; a changed key is always
/// refused.

#include <libssh2.h>

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "security/ssh/ssh_note.h"

namespace braid {

/// Which server, and which files to check it against.
struct HostKeyCheck {
  std::string display_host;  ///< the alias as typed, for messages
  std::string hostname;      ///< the name known_hosts is keyed by (config HostName)
  int port = 22;
  /// UserKnownHostsFile (default ~/.ssh/known_hosts); a new key is appended to
  /// the first; empty (`none`): a new key is accepted but not recorded.
  std::vector<std::string> user_known_hosts;
  /// GlobalKnownHostsFile; read if they exist, never written.
  std::vector<std::string> system_known_hosts{"/etc/ssh/ssh_known_hosts"};
  bool accept_new = false;  ///< record an unknown key (never a changed one)
  std::string source;       ///< where the file list came from, for messages ("": defaults)
  SshNote note;             ///< -v: the key and where it is known
};

/// `host` for port 22, else `[host]:port`: the form ssh writes and looks up.
std::string KnownHostsName(std::string_view host, int port);

/// OpenSSH's "SHA256:..." form of a SHA-256 digest: base64 without padding.
std::string Sha256Fingerprint(std::span<const unsigned char> digest);

/// Before the handshake: orders the host key algorithms as ssh does, types
/// known_hosts already holds for this host first, then ed25519, ecdsa, rsa,
/// so a server with several keys is not reported as unknown merely for
/// offering another type. Certificate types are never offered.
void PreferKnownHostKeyTypes(LIBSSH2_SESSION* session, const HostKeyCheck& check);

/// After the handshake: returns if the key is known. Otherwise throws
/// BraidError(kHostKeyUnknown) or (kHostKeyChanged) with the fingerprint,
/// the files checked and the fix, or, with accept_new and an unknown key,
/// appends it to the first user_known_hosts file (creating its directory 0700
/// and the file 0600) and notes that on stderr.
void VerifyHostKey(LIBSSH2_SESSION* session, const HostKeyCheck& check);

}  // namespace braid
