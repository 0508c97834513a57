#include "security/ssh/tcp_connect.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "braid/error.h"

namespace braid {
namespace {

struct AddrInfoDeleter {
  void operator()(addrinfo* ai) const { ::freeaddrinfo(ai); }
};
using AddrInfoPtr = std::unique_ptr<addrinfo, AddrInfoDeleter>;

std::string NumericAddress(const sockaddr* sa, socklen_t len) {
  char host[NI_MAXHOST];
  if (::getnameinfo(sa, len, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) != 0) {
    return {};
  }
  return host;
}

/// Idle control channels must survive NAT timeouts, and a dead peer must
/// surface as an error within minutes rather than hang a transfer forever.
void TuneSocket(int fd) {
  const int one = 1;
  const int idle = 60;
  const int interval = 15;
  const int count = 4;
  const unsigned user_timeout_ms = 5 * 60 * 1000;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
  ::setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout_ms, sizeof(user_timeout_ms));
}

/// Connects one address; returns the socket, or -1 with `err` set.
int ConnectOne(const addrinfo& ai, std::chrono::milliseconds timeout, int& err) {
  int fd = ::socket(ai.ai_family, ai.ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai.ai_protocol);
  if (fd < 0) {
    err = errno;
    return -1;
  }
  if (::connect(fd, ai.ai_addr, ai.ai_addrlen) != 0) {
    if (errno != EINPROGRESS) {
      err = errno;
      ::close(fd);
      return -1;
    }
    pollfd pfd{fd, POLLOUT, 0};
    int rc;
    do {
      rc = ::poll(&pfd, 1, static_cast<int>(timeout.count()));
    } while (rc < 0 && errno == EINTR);
    if (rc <= 0) {
      err = rc == 0 ? ETIMEDOUT : errno;
      ::close(fd);
      return -1;
    }
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    if (::getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) {
      so_error = errno;
    }
    if (so_error != 0) {
      err = so_error;
      ::close(fd);
      return -1;
    }
  }
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) {
    ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  TuneSocket(fd);
  return fd;
}

}  // namespace

int ConnectTcp(const std::string& display_host, const std::string& hostname, int port,
               std::chrono::milliseconds timeout) {
  const std::string service = std::to_string(port);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
  addrinfo* raw = nullptr;
  int rc = ::getaddrinfo(hostname.c_str(), service.c_str(), &hints, &raw);
  if (rc == EAI_NONAME) {
    hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
    rc = ::getaddrinfo(hostname.c_str(), service.c_str(), &hints, &raw);
  }
  if (rc != 0) {
    std::string shown = display_host == hostname ? hostname : display_host + " (" + hostname + ")";
    throw BraidError(ErrorCode::kHostUnreachable,
                     "cannot connect to " + shown + ": unknown host (" + ::gai_strerror(rc) +
                         "); check the spelling, or HostName in ~/.ssh/config");
  }
  AddrInfoPtr list(raw);
  std::string failure;
  for (const addrinfo* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
    int err = 0;
    const int fd = ConnectOne(*ai, timeout, err);
    if (fd >= 0) {
      return fd;
    }
    if (failure.empty()) {
      const std::string cause =
          err == ETIMEDOUT ? "no answer within " + std::to_string(timeout.count() / 1000) + " s"
                           : std::string(std::strerror(err));
      failure = "(";
      failure += NumericAddress(ai->ai_addr, ai->ai_addrlen);
      failure += " port ";
      failure += service;
      failure += "): ";
      failure += cause;
    }
  }
  throw BraidError(ErrorCode::kHostUnreachable,
                   "cannot connect to " + display_host + " " + failure +
                       "; check the host name and port, and that sshd runs there");
}

std::string LocalSocketAddress(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) {
    return {};
  }
  return NumericAddress(reinterpret_cast<const sockaddr*>(&ss), len);
}

}  // namespace braid
