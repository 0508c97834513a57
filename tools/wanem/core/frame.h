#pragma once
/// One frame as read from a TUN device opened with IFF_VNET_HDR: a
/// virtio_net_hdr followed by an IP packet, possibly a large TSO/GSO packet
/// that stands for many MSS-sized segments on a real wire.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/traffic_class.h"

namespace wanem {

/// struct virtio_net_hdr without mergeable buffers: TUN's default vnet header.
constexpr std::size_t kVnetHeaderSize = 10;

/// virtio_net_hdr constants (linux/virtio_net.h), repeated so the pure core
/// builds without Linux headers.
namespace vnet {
constexpr std::uint8_t kNeedsCsum = 1;
constexpr std::uint8_t kGsoNone = 0;
constexpr std::uint8_t kGsoTcpV4 = 1;
constexpr std::uint8_t kGsoTcpV6 = 4;
constexpr std::uint8_t kGsoEcn = 0x80;
}  // namespace vnet

/// The header's fields. TUN uses the host's byte order for them (legacy
/// virtio) unless TUNSETVNETLE/BE is set, which wanem never does.
struct VnetHeader {
  std::uint8_t flags = 0;
  std::uint8_t gso_type = vnet::kGsoNone;
  std::uint16_t hdr_len = 0;
  std::uint16_t gso_size = 0;
  std::uint16_t csum_start = 0;
  std::uint16_t csum_offset = 0;
};

VnetHeader ReadVnetHeader(std::span<const std::uint8_t> frame);
void WriteVnetHeader(const VnetHeader& header, std::span<std::uint8_t> frame);

/// What the emulator needs to know about a frame; filled by InspectFrame.
struct FrameInfo {
  VnetHeader vnet;
  int ip_version = 0;                     ///< 4 or 6; 0 when the frame is not IP
  std::uint8_t tos = 0;                   ///< IPv4 TOS or IPv6 traffic class
  std::size_t ip_header = 0;              ///< bytes of IP header (IPv6: fixed header only)
  std::uint8_t protocol = 0;              ///< IPv4 protocol / IPv6 next header
  std::size_t tcp_header = 0;             ///< bytes of TCP header, when TCP
  std::size_t payload = 0;                ///< TCP payload bytes, when TCP
  std::uint32_t segments = 1;             ///< segments on a real wire
  std::uint64_t wire_bytes = 0;           ///< IP bytes those segments occupy on the wire
  std::uint64_t first_segment_bytes = 0;  ///< IP bytes of the first of them
  bool splittable = false;                ///< a TCP GSO frame SplitGso can cut up
};

/// Parses the vnet header and the IP and TCP headers. Never throws: a frame it
/// cannot understand is one segment of its own size and not splittable.
FrameInfo InspectFrame(std::span<const std::uint8_t> frame);

/// A frame on its way through one direction of the link.
struct Frame {
  std::vector<std::uint8_t> bytes;  ///< vnet header + IP packet
  std::int64_t arrival_ns = 0;      ///< when it was read
  std::int64_t release_ns = 0;      ///< when it leaves the delay line
  std::uint64_t wire_bytes = 0;
  std::uint64_t first_segment_bytes = 0;  ///< wire bytes of its first segment
  std::uint32_t segments = 1;
  TrafficClass traffic_class = TrafficClass::kBestEffort;
};

}  // namespace wanem
