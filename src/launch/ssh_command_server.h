#pragma once
/// `-S CMD`: runs `braid --serve` on a remote host through the system ssh
/// client instead of libssh2, so everything in the user's ssh setup (ProxyJump,
/// ControlMaster, GSSAPI, PKCS#11...) applies. The client's stdin and stdout
/// are one end of a socketpair that carries the control protocol; its stderr is
/// read to explain a failure and passed through once the remote braid answers.

#include <memory>
#include <string>
#include <vector>

#include "braid/byte_stream.h"

namespace braid {

struct SshCommandSpec {
  std::string command;  ///< -S: shell words, e.g. "ssh -F cfg -J jump"
  std::string host;     ///< as typed: alias, name or literal address
  std::string user;     ///< empty: ssh decides (config User, else the local user)
  int port = 0;         ///< --ssh-port; 0: ssh decides
  std::vector<std::string> identity_files;  ///< -i, passed on as ssh -i
  bool accept_new_host_key = false;         ///< passed on as StrictHostKeyChecking=accept-new
  std::string remote_command;               ///< e.g. "braid --serve", sent as is
};

/// The argv that runs the client: /bin/sh -c 'exec CMD "$@"' with braid's
/// arguments as "$@", so CMD is split by the shell as the user quoted it while
/// the host and the remote command reach ssh unchanged (no quoting to get wrong).
std::vector<std::string> SshCommandArgv(const SshCommandSpec& spec);

/// Starts the client. Throws BraidError(kInternal) if no process can be started;
/// ssh's own failures surface when the stream ends (DescribeFailure).
std::unique_ptr<ServerChannel> SpawnSshCommand(const SshCommandSpec& spec, StderrSink on_stderr);

/// Our address on the route to `address` (a numeric address), found by the
/// kernel's routing table without sending anything; "" if there is none. The
/// local sink of a pull over -S listens there, since the ssh client's socket is
/// not ours to ask.
std::string LocalAddressToward(const std::string& address);

}  // namespace braid
