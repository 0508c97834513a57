#pragma once
/// --deploy: when a remote host has no braid of this protocol version, run
/// this braid's portable (static) build there, uploaded over the ssh channel
/// the end runs on. One remote command does it all (DeployCommand), so the
/// upload needs no second login, under libssh2 and the system ssh (-S) alike:
/// a small sh script that runs the host's own braid if it speaks our protocol,
/// else ~/.cache/braid/<sha256>/braid if that file's SHA-256 is right, else
/// asks for the binary on its stdin, writes it under a temporary name, checks
/// its SHA-256 with the host's sha256sum, renames it into place (mode 0700),
/// and execs it as `--serve`. The script and the agent talk in lines that
/// begin "braid-deploy " on the channel before the control protocol starts
/// (RunDeployDialogue); docs/protocol.md describes them.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "braid/byte_stream.h"

namespace braid {

/// The build --deploy uploads, read once.
struct PortableBinary {
  std::string path;
  std::string sha256;  ///< lower-case hex
  std::shared_ptr<const std::vector<char>> bytes;
};

/// Where the portable binary is, first found of: `env` ($BRAID_PORTABLE, which
/// must name a file when set), this braid itself when it is static (`self`,
/// /proc/self/exe), braid-static beside it, ../lib/braid/braid-static from its
/// directory (where `cmake --install` puts it). Throws BraidError(kUsage)
/// naming the places looked in.
std::string FindPortableBinary(const char* env, const std::string& self, bool self_is_static);

/// FindPortableBinary for this process, read and hashed (once per process).
/// Throws BraidError(kUsage).
PortableBinary LoadPortableBinary();

/// The remote command: `serve_command` (-T CMD with " --serve ...") when CMD
/// speaks our protocol version, else the deployed copy with `serve_args`.
std::string DeployCommand(const std::string& remote_command, const std::string& serve_args,
                          const PortableBinary& binary);

/// What the script did, for -v.
struct DeployOutcome {
  std::string how;      ///< "system", "reused", "new" or "replaced"
  std::string path;     ///< the deployed braid on the host ("" for "system")
  std::string command;  ///< what now runs, for messages
};

/// The outcome a script's "ok HOW PATH" line names, HOW one of reused, new
/// or replaced; nullopt for any other line (an unknown status is a protocol
/// error, never reported as an upload).
std::optional<DeployOutcome> ParseDeployDone(const std::string& status);

/// Talks to the script DeployCommand started on `channel` until it runs a
/// braid: uploads the binary when asked. Each status line must come within
/// `timeout` (--connect-timeout) of the step before it, the upload aside, or
/// the channel is abandoned. Throws BraidError(kRemoteMissing) with the
/// script's reason when it fails, kPeerLost when the channel ends,
/// kHostUnreachable when the script does not answer in time.
DeployOutcome RunDeployDialogue(ServerChannel& channel, const PortableBinary& binary,
                                const std::string& serve_command,
                                std::chrono::milliseconds timeout);

}  // namespace braid
