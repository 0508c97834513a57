#pragma once
/// Numbered errors that cross process boundaries, and the exit codes they map to.
/// docs/errors.md lists every code; keep the two in step.

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace braid {

/// Error codes travel in control messages, so their numbers are part of the protocol.
enum class ErrorCode : std::uint16_t {
  kOk = 0,
  kInternal = 1,          ///< a bug or an unexpected environment failure
  kUsage = 2,             ///< bad command line
  kHostUnreachable = 3,   ///< unknown host, connection refused, timeout
  kAuthRefused = 4,       ///< ssh authentication failed
  kHostKeyUnknown = 5,    ///< host key not in known_hosts
  kHostKeyChanged = 6,    ///< host key differs from known_hosts
  kRemoteMissing = 7,     ///< braid not found on the remote host
  kSourceUnreadable = 8,  ///< source missing or unreadable
  kTargetUnwritable = 9,  ///< target directory missing or not writable
  kDiskFull = 10,         ///< ENOSPC or EDQUOT on the target
  kProtocol = 11,         ///< the peer broke the protocol
  kDataConnect = 12,      ///< no data stream could be connected
  kIntegrity = 13,        ///< block checksums or the -E digests disagree
  kInterrupted = 14,      ///< SIGINT or SIGTERM
  kPeerLost = 15,         ///< a control channel ended unexpectedly
  kNothingToResume = 16,  ///< -a, but no partial copy or completed file was found
  kStalled = 17,          ///< no progress for --stall-timeout seconds
  /// The copy finished, but some source entries could not be read and were
  /// left out (each named in a warning): rsync's "partial transfer" (exit 23).
  kPartial = 18,
  /// A copy to many destinations (--to) where some failed and the rest are in
  /// place. The agent's own verdict: no server sends it, so it is past
  /// kMaxErrorCode and refused on the wire.
  kDestinationsFailed = 19,
};

/// Process exit status for an error code. Distinct per class so scripts can branch on it.
constexpr int ExitCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return 0;
    case ErrorCode::kInternal:
      return 1;
    case ErrorCode::kUsage:
      return 2;
    case ErrorCode::kHostUnreachable:
      return 3;
    case ErrorCode::kAuthRefused:
      return 4;
    case ErrorCode::kHostKeyUnknown:
    case ErrorCode::kHostKeyChanged:
      return 5;
    case ErrorCode::kRemoteMissing:
      return 6;
    case ErrorCode::kSourceUnreadable:
      return 7;
    case ErrorCode::kTargetUnwritable:
      return 8;
    case ErrorCode::kDiskFull:
      return 9;
    case ErrorCode::kProtocol:
      return 10;
    case ErrorCode::kDataConnect:
      return 11;
    case ErrorCode::kIntegrity:
      return 12;
    case ErrorCode::kPeerLost:
      return 13;
    case ErrorCode::kNothingToResume:
      return 14;
    case ErrorCode::kStalled:
      return 15;
    case ErrorCode::kPartial:
      return 23;
    case ErrorCode::kDestinationsFailed:
      return 16;
    case ErrorCode::kInterrupted:
      return 130;
  }
  return 1;
}

/// Short stable name, used in verbose output and JSON.
constexpr const char* ErrorName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk:
      return "ok";
    case ErrorCode::kInternal:
      return "internal";
    case ErrorCode::kUsage:
      return "usage";
    case ErrorCode::kHostUnreachable:
      return "host-unreachable";
    case ErrorCode::kAuthRefused:
      return "auth-refused";
    case ErrorCode::kHostKeyUnknown:
      return "host-key-unknown";
    case ErrorCode::kHostKeyChanged:
      return "host-key-changed";
    case ErrorCode::kRemoteMissing:
      return "remote-missing";
    case ErrorCode::kSourceUnreadable:
      return "source-unreadable";
    case ErrorCode::kTargetUnwritable:
      return "target-unwritable";
    case ErrorCode::kDiskFull:
      return "disk-full";
    case ErrorCode::kProtocol:
      return "protocol";
    case ErrorCode::kDataConnect:
      return "data-connect";
    case ErrorCode::kIntegrity:
      return "integrity";
    case ErrorCode::kInterrupted:
      return "interrupted";
    case ErrorCode::kPeerLost:
      return "peer-lost";
    case ErrorCode::kNothingToResume:
      return "nothing-to-resume";
    case ErrorCode::kStalled:
      return "stalled";
    case ErrorCode::kPartial:
      return "partial";
    case ErrorCode::kDestinationsFailed:
      return "destinations-failed";
  }
  return "unknown";
}

/// Highest code a peer may send; anything above is itself a protocol error
/// (kDestinationsFailed is the agent's alone).
constexpr std::uint16_t kMaxErrorCode = static_cast<std::uint16_t>(ErrorCode::kPartial);

/// An expected failure: a user mistake, the environment, or a misbehaving peer.
/// The message is one sentence a user can act on, already naming host and path.
class BraidError : public std::runtime_error {
 public:
  BraidError(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

/// Maps an errno from writing the target to the error class a user cares about.
inline ErrorCode ErrorCodeForTargetErrno(int err) {
  return (err == ENOSPC || err == EDQUOT) ? ErrorCode::kDiskFull : ErrorCode::kTargetUnwritable;
}

/// "host:path: strerror(err)"; no host prefix for a local path.
inline std::string DescribeErrno(const std::string& host, const std::string& path, int err) {
  return (host.empty() ? path : host + ":" + path) + ": " + std::strerror(err);
}

}  // namespace braid
