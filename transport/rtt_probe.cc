#include "transport/rtt_probe.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>

#include "braid/error.h"

namespace braid {
namespace {

/// A numeric address and port as a socket address; nullptr for anything else.
std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> Numeric(const std::string& address,
                                                             std::uint16_t port) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (::getaddrinfo(address.c_str(), service.c_str(), &hints, &found) != 0) found = nullptr;
  return {found, &::freeaddrinfo};
}

/// One connect to `ai`, in microseconds; nullopt when it failed or took too long.
std::optional<std::uint32_t> TimeOneConnect(const addrinfo& ai, std::chrono::milliseconds timeout) {
  UniqueFd fd(::socket(ai.ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd.valid()) return std::nullopt;
  const auto start = std::chrono::steady_clock::now();
  if (::connect(fd.get(), ai.ai_addr, ai.ai_addrlen) != 0 && errno != EINPROGRESS) {
    return std::nullopt;
  }
  pollfd p{fd.get(), POLLOUT, 0};
  int ready = 0;
  do {
    ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
  } while (ready < 0 && errno == EINTR);
  int err = 0;
  socklen_t len = sizeof err;
  if (ready <= 0 || ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
    return std::nullopt;
  }
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  return static_cast<std::uint32_t>(
      std::clamp<std::int64_t>(us, 1, std::numeric_limits<std::uint32_t>::max()));
}

}  // namespace

ProbeListener::ProbeListener(const std::string& bind_address, std::uint16_t port_min,
                             std::uint16_t port_max)
    : stop_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  auto fail = [&](int err) {
    throw BraidError(ErrorCode::kDataConnect,
                     "cannot listen for probes on " + bind_address + ": " + std::strerror(err));
  };
  auto ai = Numeric(bind_address, 0);
  if (!ai) fail(EINVAL);
  fd_.Reset(::socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd_.valid() || !stop_.valid()) fail(errno);
  if (const int err = BindInRange(bind_address, port_min, port_max); err != 0) fail(err);
  if (::listen(fd_.get(), 64) != 0) fail(errno);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  if (::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&bound), &len) != 0) fail(errno);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  thread_ = std::thread([this] { AnswerLoop(); });
}

int ProbeListener::BindInRange(const std::string& bind_address, std::uint16_t port_min,
                               std::uint16_t port_max) {
  const std::uint32_t span = port_min == 0 ? 1 : std::uint32_t{port_max} - port_min + 1;
  const auto start = static_cast<std::uint32_t>(std::random_device{}() % span);
  int err = EADDRINUSE;
  for (std::uint32_t i = 0; i < span && err == EADDRINUSE; ++i) {
    const std::uint16_t port =
        port_min == 0 ? 0 : static_cast<std::uint16_t>(port_min + (start + i) % span);
    auto ai = Numeric(bind_address, port);
    err = ::bind(fd_.get(), ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
  }
  return err;
}

ProbeListener::~ProbeListener() {
  std::uint64_t one = 1;
  if (::write(stop_.get(), &one, sizeof one) < 0) {
    // Only an overflowing counter fails; the loop sees it readable anyway.
  }
  thread_.join();
}

void ProbeListener::AnswerLoop() {
  for (;;) {
    pollfd fds[2] = {{fd_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    // The connect is answered by the kernel's SYN-ACK; this only clears the queue.
    UniqueFd accepted(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
  }
}

std::uint32_t MeasureConnectRtt(const std::vector<std::string>& addresses, std::uint16_t port,
                                int tries, std::chrono::milliseconds timeout) {
  for (const std::string& address : addresses) {
    auto ai = Numeric(address, port);
    if (!ai || port == 0) continue;  // not numeric: skipped, never looked up
    std::optional<std::uint32_t> best;
    for (int i = 0; i < tries; ++i) {
      const std::optional<std::uint32_t> us = TimeOneConnect(*ai, timeout);
      if (!us) break;
      best = std::min(best.value_or(*us), *us);
    }
    if (best) return *best;
  }
  return 0;
}

}  // namespace braid
