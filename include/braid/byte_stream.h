#pragma once
/// A reliable, ordered byte stream: a pipe to a child, or an ssh channel.
/// The control protocol is written against this so it runs the same over both.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "braid/error.h"

namespace braid {

/// Called with each chunk a server's transport writes to its stderr (the remote
/// command under libssh2, the ssh client under -S), named by its host.
using StderrSink = std::function<void(const std::string& host, std::string_view text)>;

class ByteStream {
 public:
  virtual ~ByteStream() = default;
  /// Reads up to `n` bytes, blocking until at least one is available.
  /// Returns 0 at end of stream. Throws BraidError when the stream fails.
  virtual std::size_t ReadSome(void* buf, std::size_t n) = 0;
  /// Writes all `n` bytes or throws BraidError. Safe to call while another
  /// thread is inside ReadSome.
  virtual void WriteAll(const void* buf, std::size_t n) = 0;
  /// Signals end of stream to the peer; reads stay possible.
  virtual void CloseWrite() = 0;
};

/// A control stream to a `braid --serve` process, local child or remote exec.
class ServerChannel : public ByteStream {
 public:
  /// Host name for messages ("localhost" for a local child).
  virtual std::string host() const = 0;
  /// The remote command's exit status once the stream has ended, if known.
  virtual std::optional<int> ExitStatus() = 0;
  /// Our own address on the connection that reaches this host, for a local
  /// server that must tell the far end where to connect. Empty if unknown.
  virtual std::string LocalAddress() const = 0;
  /// Gives up on a server that does not answer (stopped, hung): ends the
  /// stream at once so a blocked ReadSome returns, without the server's help.
  /// A local child or an ssh client process is killed; a libssh2 connection is cut.
  virtual void Abandon() = 0;
  /// Why the stream ended, when the transport knows better than an exit status
  /// (the ssh client's own message). nullopt: judge by ExitStatus().
  virtual std::optional<BraidError> DescribeFailure() { return std::nullopt; }
};

}  // namespace braid
