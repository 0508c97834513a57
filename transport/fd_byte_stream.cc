#include "transport/fd_byte_stream.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include "braid/error.h"

namespace braid {
namespace {

bool IsSocket(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

}  // namespace

FdByteStream::FdByteStream(UniqueFd socket, FdStreamWords words)
    : owned_(std::move(socket)),
      read_fd_(owned_.get()),
      write_fd_(owned_.get()),
      write_is_socket_(true),
      words_(std::move(words)) {}

FdByteStream::FdByteStream(int read_fd, int write_fd, FdStreamWords words)
    : read_fd_(read_fd),
      write_fd_(write_fd),
      write_is_socket_(IsSocket(write_fd)),
      words_(std::move(words)) {}

std::size_t FdByteStream::ReadSome(void* buf, std::size_t n) {
  for (;;) {
    const ssize_t r = ::read(read_fd_, buf, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) return 0;
    Fail(words_.read_failed, errno);
  }
}

void FdByteStream::WriteAll(const void* buf, std::size_t n) {
  const auto* p = static_cast<const std::uint8_t*>(buf);
  const int fd = write_fd_.load();
  while (n > 0) {
    const ssize_t w = write_is_socket_ ? ::send(fd, p, n, MSG_NOSIGNAL) : ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      Fail(words_.write_failed, errno);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void FdByteStream::CloseWrite() {
  int fd = write_fd_.load();
  // ENOTCONN once the peer is gone is fine: the reader reports the end.
  if (fd < 0 || ::shutdown(fd, SHUT_WR) == 0 || fd == read_fd_) return;
  if (write_fd_.compare_exchange_strong(fd, -1)) ::close(fd);
}

void FdByteStream::Shutdown() {
  if (read_fd_ >= 0) ::shutdown(read_fd_, SHUT_RDWR);
}

void FdByteStream::Close() {
  if (!owned_.valid()) return;
  owned_.Reset();
  read_fd_ = -1;
  write_fd_ = -1;
}

void FdByteStream::Fail(const std::string& words, int error) const {
  throw BraidError(ErrorCode::kPeerLost, words + ": " + std::strerror(error));
}

}  // namespace braid
