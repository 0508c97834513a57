#include "transport/socket_tuning.h"

#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <fstream>

#include "braid/error.h"
#include "braid/unique_fd.h"

namespace braid {
namespace {

/// The names in a /proc list such as tcp_available_congestion_control, space-separated.
std::string ReadNameList(const char* path) {
  std::ifstream in(path);
  std::string name;
  std::string names;
  while (in >> name) names += (names.empty() ? "" : " ") + name;
  return names;
}

/// Why the kernel refused TCP_CONGESTION `name` with `err`, naming what it would take.
[[noreturn]] void ThrowCongestionControl(const std::string& name, const std::string& host,
                                         int err) {
  std::string where = host.empty() ? "" : " on " + host;
  std::string what = "--cc: congestion control \"" + name + "\"";
  if (err == EPERM) {
    // Unprivileged users may only pick from the allowed list (root may load others).
    std::string allowed = ReadNameList("/proc/sys/net/ipv4/tcp_allowed_congestion_control");
    throw BraidError(ErrorCode::kUsage,
                     what + " is not allowed for this user" + where +
                         "; allowed: " + (allowed.empty() ? "(unknown)" : allowed) +
                         " (net.ipv4.tcp_allowed_congestion_control)");
  }
  std::string available = AvailableCongestionControl();
  std::string why = err == ENOENT ? " is not available" : std::string(": ") + std::strerror(err);
  throw BraidError(ErrorCode::kUsage, what + why + where + "; the kernel offers: " +
                                          (available.empty() ? "(unknown)" : available) +
                                          " (net.ipv4.tcp_available_congestion_control)");
}

/// Marks the socket's packets; IPv6 sockets get IP_TOS too so that v4-mapped peers are
/// marked as well. The kernel keeps the two ECN bits of a TCP socket to itself.
std::string ApplyTos(int fd, int tos) {
  int domain = AF_INET;
  socklen_t len = sizeof domain;
  if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) != 0) {
    return std::string("cannot mark packets (QoS): ") + std::strerror(errno);
  }
  if (domain == AF_INET6) {
    if (setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof tos) != 0) {
      return std::string("cannot set IPV6_TCLASS (QoS): ") + std::strerror(errno);
    }
    (void)setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos);  // best effort: v4-mapped
    return {};
  }
  if (setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof tos) != 0) {
    return std::string("cannot set IP_TOS (QoS): ") + std::strerror(errno);
  }
  return {};
}

/// Sets TCP_CONGESTION; the error number on failure, else 0.
int SetCongestionControl(int fd, const std::string& name) {
  if (setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name.data(),
                 static_cast<socklen_t>(name.size())) != 0) {
    return errno;
  }
  return 0;
}

std::string ApplyWindow(int fd, std::uint64_t window) {
  if (window == 0) return {};
  // The kernel doubles the value and caps it at net.core.[rw]mem_max; a
  // larger request is not an error, so only a failing call is reported.
  int value = window > INT_MAX ? INT_MAX : static_cast<int>(window);
  std::string warning;
  for (int opt : {SO_SNDBUF, SO_RCVBUF}) {
    if (setsockopt(fd, SOL_SOCKET, opt, &value, sizeof value) != 0) {
      warning = std::string("cannot set socket buffer: ") + std::strerror(errno);
    }
  }
  return warning;
}

}  // namespace

std::string ApplySocketTuning(int fd, const SocketTuning& tuning) {
  if (!tuning.congestion_control.empty()) {
    if (int err = SetCongestionControl(fd, tuning.congestion_control)) {
      ThrowCongestionControl(tuning.congestion_control, "", err);
    }
  }
  std::string warning = ApplyWindow(fd, tuning.window);
  if (tuning.tos >= 0) {
    std::string tos_warning = ApplyTos(fd, tuning.tos);
    if (!tos_warning.empty()) {
      warning = warning.empty() ? tos_warning : warning + "; " + tos_warning;
    }
  }
  return warning;
}

void CheckCongestionControl(const std::string& name, const std::string& host) {
  if (name.empty()) return;
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) fd = UniqueFd(::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return;  // no TCP at all: the data sockets will say so themselves
  if (int err = SetCongestionControl(fd.get(), name)) ThrowCongestionControl(name, host, err);
}

std::string AvailableCongestionControl() {
  return ReadNameList("/proc/sys/net/ipv4/tcp_available_congestion_control");
}

std::string DefaultCongestionControl() {
  return ReadNameList("/proc/sys/net/ipv4/tcp_congestion_control");
}

}  // namespace braid
