#pragma once
/// A ByteStream over file descriptors: the server's stdin/stdout under ssh,
/// or one end of a socketpair when the agent runs the server as a child.

#include "braid/byte_stream.h"

namespace braid {

class FdStream : public ByteStream {
 public:
  /// Borrows the descriptors; the caller keeps them open.
  FdStream(int read_fd, int write_fd) : read_fd_(read_fd), write_fd_(write_fd) {}
  std::size_t ReadSome(void* buf, std::size_t n) override;
  void WriteAll(const void* buf, std::size_t n) override;
  void CloseWrite() override;

 private:
  int read_fd_;
  int write_fd_;
};

}  // namespace braid
