#include "io/tun_device.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/frame.h"
#include "io/netns.h"
#include "io/sys_error.h"

namespace wanem {

// linux/virtio_net.h cannot be included from C++ (a member is named
// `class`), so core/frame.h carries its constants; TUN's default vnet header
// size is the 10 bytes asserted there and set explicitly below.

namespace {

/// Closes an fd on scope exit unless released.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
  int Release() {
    const int out = fd;
    fd = -1;
    return out;
  }
};

void CopyName(ifreq& ifr, const std::string& name, const std::string& label) {
  if (name.empty() || name.size() >= IFNAMSIZ) {
    throw std::runtime_error("interface name '" + name + "' (" + label +
                             ") must be 1-15 characters");
  }
  std::memset(&ifr, 0, sizeof ifr);
  std::memcpy(ifr.ifr_name, name.c_str(), name.size());
}

}  // namespace

TunDevice TunDevice::Open(const TunOptions& options) {
  const std::string label = options.name + " in namespace " + options.netns;
  NetnsScope in_namespace(options.netns);

  FdGuard tun{::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC)};
  if (tun.fd < 0) ThrowErrno("open /dev/net/tun for " + label);
  ifreq ifr;
  CopyName(ifr, options.name, label);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI | IFF_VNET_HDR;
  if (::ioctl(tun.fd, TUNSETIFF, &ifr) != 0) ThrowErrno("TUNSETIFF (create TUN) " + label);
  int header_size = static_cast<int>(kVnetHeaderSize);
  if (::ioctl(tun.fd, TUNSETVNETHDRSZ, &header_size) != 0) {
    ThrowErrno("TUNSETVNETHDRSZ " + label);
  }
  const unsigned offloads =
      options.offload ? TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN : 0u;
  if (::ioctl(tun.fd, TUNSETOFFLOAD, offloads) != 0) ThrowErrno("TUNSETOFFLOAD " + label);

  // Interface settings go through any socket in the namespace.
  FdGuard sock{::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)};
  if (sock.fd < 0) ThrowErrno("socket for configuring " + label);
  CopyName(ifr, options.name, label);
  ifr.ifr_mtu = options.mtu;
  if (::ioctl(sock.fd, SIOCSIFMTU, &ifr) != 0) {
    ThrowErrno("set MTU " + std::to_string(options.mtu) + " on " + label);
  }
  CopyName(ifr, options.name, label);
  ifr.ifr_qlen = options.txqueuelen;
  if (::ioctl(sock.fd, SIOCSIFTXQLEN, &ifr) != 0) ThrowErrno("set txqueuelen on " + label);
  CopyName(ifr, options.name, label);
  if (::ioctl(sock.fd, SIOCGIFFLAGS, &ifr) != 0) ThrowErrno("get flags of " + label);
  ifr.ifr_flags = static_cast<short>(ifr.ifr_flags | IFF_UP);
  if (::ioctl(sock.fd, SIOCSIFFLAGS, &ifr) != 0) ThrowErrno("bring up " + label);
  return TunDevice(tun.Release(), label);
}

TunDevice::TunDevice(TunDevice&& other) noexcept : fd_(other.fd_), label_(std::move(other.label_)) {
  other.fd_ = -1;
}

TunDevice::~TunDevice() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t TunDevice::Read(std::span<std::uint8_t> buffer) {
  for (;;) {
    const ssize_t n = ::read(fd_, buffer.data(), buffer.size());
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    ThrowErrno("read from " + label_);
  }
}

bool TunDevice::Write(std::span<const std::uint8_t> frame) {
  for (;;) {
    const ssize_t n = ::write(fd_, frame.data(), frame.size());
    if (n >= 0) return static_cast<std::size_t>(n) == frame.size();
    if (errno != EINTR) return false;
  }
}

}  // namespace wanem
