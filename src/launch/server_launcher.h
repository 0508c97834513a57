#pragma once
/// The seam between the agent and the way its ends are started. The agent asks
/// for a `braid --serve` for each end and gets its control channel; how the
/// server was started (a local child, the system ssh under -S, or libssh2's
/// exec) is the launcher's business. Tests put in-process servers behind it.

#include <memory>
#include <string>

#include "braid/byte_stream.h"
#include "braid/endpoint.h"
#include "braid/options.h"

namespace braid {

/// The libssh2 the launcher reaches remote hosts with ("1.10.0"), for
/// `braid --version`: the agent sees libssh2 only through launch.
std::string SshLibraryVersion();

/// Which end of the copy a server is for.
enum class Side { kSource = 0, kSink = 1 };

/// A started `braid --serve`.
struct LaunchedServer {
  std::unique_ptr<ServerChannel> channel;
  /// What was run, for "braid was not found on HOST (ran '...')".
  std::string command;
};

class ServerLauncher {
 public:
  virtual ~ServerLauncher() = default;
  /// Starts the server for `side` at `endpoint`; what it writes to stderr
  /// before the control protocol runs (ssh's messages) goes to `on_stderr`.
  /// Throws BraidError: ssh errors (kHostUnreachable, kAuthRefused, host key),
  /// kInternal when no process can be started.
  virtual LaunchedServer Launch(Side side, const Endpoint& endpoint, const Options& options,
                                StderrSink on_stderr) = 0;
};

/// The launcher of the braid you run: a local path gets a child over a
/// socketpair (launch/local_server), a remote one the system ssh with -S
/// (launch/ssh_command_server), else a libssh2 connection that execs
/// `-T CMD --serve` (security/ssh). The libssh2 channel holds its session
/// (shared), so the connection object itself is not kept.
class ProcessServerLauncher : public ServerLauncher {
 public:
  LaunchedServer Launch(Side side, const Endpoint& endpoint, const Options& options,
                        StderrSink on_stderr) override;
};

}  // namespace braid
