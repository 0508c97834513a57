#pragma once
/// Turns the system ssh client's failure (its exit status and what it wrote to
/// stderr) into braid's error classes, so `-S` fails with the same exit codes
/// as the built-in libssh2 path. Pure: no processes, no IO.

#include <optional>
#include <string>

#include "braid/error.h"

namespace braid {

/// How an ssh client process ended, as the -S channel saw it.
struct SshClientEnd {
  std::string host;     ///< as the user typed it
  std::string command;  ///< the -S command, for messages
  int exit_status = 0;  ///< 128 + N after signal N
  std::string stderr_text;
  /// True once the control stream carried a byte: ssh was connected and the
  /// remote command running, so a later ssh error is a lost connection.
  bool connected = false;
  /// The local shell could not start the -S command (not found, not executable).
  bool local_exec_failed = false;
};

/// The error that explains `end`, or nullopt when the exit status belongs to
/// the remote command (not 255, ssh's own failure status) and the caller's
/// generic handling applies (127: braid missing remotely).
std::optional<BraidError> DescribeSshClientEnd(const SshClientEnd& end);

/// The last few non-empty lines of ssh's stderr (plus any SHA256 fingerprint
/// line), joined with "; ", without carriage returns, for a one-line message.
std::string SummarizeSshStderr(const std::string& text);

}  // namespace braid
