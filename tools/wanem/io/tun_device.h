#pragma once
/// A TUN device in a network namespace, opened so that the kernel hands us
/// large TSO/GSO frames with a virtio_net_hdr in front (IFF_VNET_HDR plus
/// TUNSETOFFLOAD): one read per 64 KiB instead of per 1.5 KiB is what lets a
/// user-space wire carry 1 Gbit/s on a fraction of a core.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace wanem {

struct TunOptions {
  std::string netns;  ///< namespace to create it in
  std::string name;   ///< interface name, e.g. "wan0"
  int mtu = 1500;
  int txqueuelen = 10000;  ///< the kernel's queue in front of us: long enough for bursts
  bool offload = true;     ///< TUN_F_CSUM | TSO4 | TSO6 (| TSO_ECN)
};

class TunDevice {
 public:
  /// Creates the device in `options.netns`, sets MTU and queue length and
  /// brings it up (addresses are left to the caller: `ip -n NS addr add`).
  /// Throws naming the device, the namespace and the errno text.
  static TunDevice Open(const TunOptions& options);

  TunDevice(TunDevice&& other) noexcept;
  TunDevice& operator=(TunDevice&&) = delete;
  TunDevice(const TunDevice&) = delete;
  ~TunDevice();

  int fd() const { return fd_; }
  const std::string& label() const { return label_; }

  /// Reads one frame (vnet header + packet). Returns its size, 0 when nothing
  /// is waiting (non-blocking), or throws on a real error.
  std::size_t Read(std::span<std::uint8_t> buffer);
  /// Writes one frame; false (errno kept) on failure, which the caller counts.
  bool Write(std::span<const std::uint8_t> frame);

 private:
  TunDevice(int fd, std::string label) : fd_(fd), label_(std::move(label)) {}
  int fd_;
  std::string label_;  ///< "wan0 in braidtb-123-a", for messages
};

}  // namespace wanem
