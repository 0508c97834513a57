#pragma once
/// The one ByteStream over file descriptors: `braid --serve` on its stdin and
/// stdout (or the socket --serve-fd names), and the agent's end of the
/// socketpair to a local child or to the system ssh client. One place for the
/// EINTR loops, the write-all loop and what a vanished peer looks like.

#include <atomic>
#include <cstddef>
#include <string>

#include "braid/byte_stream.h"
#include "braid/unique_fd.h"

namespace braid {

/// What a failure says, "<words>: <cause>", naming the peer the way its user
/// knows it ("local braid --serve", "the ssh command for HOST ...").
struct FdStreamWords {
  std::string read_failed;
  std::string write_failed;
};

class FdByteStream final : public ByteStream {
 public:
  /// Owns one socket that carries both directions; the destructor or Close()
  /// closes it.
  FdByteStream(UniqueFd socket, FdStreamWords words);
  /// Borrows the descriptors (one socket, or a pipe each way); the caller keeps
  /// them open, except that CloseWrite closes a write end that is no socket.
  FdByteStream(int read_fd, int write_fd, FdStreamWords words);
  FdByteStream(const FdByteStream&) = delete;
  FdByteStream& operator=(const FdByteStream&) = delete;

  /// Blocks until there is data. Returns 0 at the end of the stream, and also
  /// when the peer reset it (a child killed mid-stream): the owner judges that
  /// end by what it knows (an exit status). Throws BraidError(kPeerLost).
  std::size_t ReadSome(void* buf, std::size_t n) override;
  /// send(MSG_NOSIGNAL) on a socket, so a vanished peer is EPIPE or ECONNRESET,
  /// never SIGPIPE; write() on anything else. Throws BraidError(kPeerLost).
  void WriteAll(const void* buf, std::size_t n) override;
  /// shutdown(SHUT_WR); a pipe, which has no half-close, is closed instead.
  void CloseWrite() override;

  /// Ends both directions now, from any thread: a ReadSome blocked in another
  /// thread returns 0 and the peer sees the end. For Abandon().
  void Shutdown();
  /// Closes an owned socket, so the peer sees the end. Not while another thread
  /// uses the stream; nothing may be read or written afterwards.
  void Close();

  /// For poll() beside another descriptor.
  int read_fd() const { return read_fd_; }

 private:
  [[noreturn]] void Fail(const std::string& words, int error) const;

  UniqueFd owned_;  ///< the socket when owned; invalid when borrowed
  /// Set in the constructor; Close(), which clears it, runs alone by contract.
  int read_fd_;
  /// Atomic: CloseWrite on a pipe clears it (-1: later writes fail with EBADF
  /// instead of landing in whatever reuses the number) while a reader may run.
  std::atomic<int> write_fd_;
  const bool write_is_socket_;  ///< constant after the constructor
  const FdStreamWords words_;   ///< constant after the constructor
};

}  // namespace braid
