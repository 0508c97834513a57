#include "serve/fd_stream.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "braid/error.h"

namespace braid {

std::size_t FdStream::ReadSome(void* buf, std::size_t n) {
  for (;;) {
    ssize_t r = ::read(read_fd_, buf, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno == EINTR) continue;
    throw BraidError(ErrorCode::kPeerLost,
                     std::string("control channel read failed: ") + std::strerror(errno));
  }
}

void FdStream::WriteAll(const void* buf, std::size_t n) {
  const auto* p = static_cast<const std::uint8_t*>(buf);
  while (n > 0) {
    ssize_t w = ::write(write_fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw BraidError(ErrorCode::kPeerLost,
                       std::string("control channel write failed: ") + std::strerror(errno));
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void FdStream::CloseWrite() {
  if (::shutdown(write_fd_, SHUT_WR) != 0 && read_fd_ != write_fd_) ::close(write_fd_);
}

}  // namespace braid
