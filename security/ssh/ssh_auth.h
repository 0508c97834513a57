#pragma once
/// Public-key authentication for an ssh session, in ssh's order: the agent,
/// then the keys the user named, then the default key files. braid never
/// prompts, so passwords and passphrases are out of scope by design.

#include <libssh2.h>

#include <string>
#include <string_view>
#include <vector>

#include "security/ssh/ssh_note.h"

namespace braid {

/// Who logs in, with which keys.
struct AuthPlan {
  std::string display_host;  ///< the alias as typed, for messages
  std::string user;
  std::string home;                                 ///< shown as ~ in messages
  bool use_agent = false;                           ///< SSH_AUTH_SOCK is set
  std::vector<std::string> identity_files;          ///< -i, then config; missing ones noted
  std::vector<std::string> default_identity_files;  ///< tried only when they exist
  bool only_named = false;  ///< IdentitiesOnly: no agent, no default keys (said on refusal)
  SshNote note;             ///< -v: the key that logged in; -vv: each one offered
};

/// Authenticates the (blocking) session or throws: BraidError(kAuthRefused)
/// listing what was tried and the fix, or (kHostUnreachable) if the
/// connection is lost before any key was refused.
void Authenticate(LIBSSH2_SESSION* session, const AuthPlan& plan);

/// True for a passphrase-protected private key (OpenSSH, PKCS#8 or legacy
/// PEM format), which braid skips since it cannot ask for the passphrase.
bool IsEncryptedPrivateKey(std::string_view key_text);

}  // namespace braid
