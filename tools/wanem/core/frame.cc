#include "core/frame.h"

#include <algorithm>
#include <cstring>

namespace wanem {
namespace {

std::uint16_t Host16(const std::uint8_t* p) {
  std::uint16_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::uint16_t Be16(const std::uint8_t* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }

constexpr std::uint8_t kTcp = 6;

}  // namespace

VnetHeader ReadVnetHeader(std::span<const std::uint8_t> frame) {
  VnetHeader h;
  if (frame.size() < kVnetHeaderSize) return h;
  const std::uint8_t* p = frame.data();
  h.flags = p[0];
  h.gso_type = p[1];
  h.hdr_len = Host16(p + 2);
  h.gso_size = Host16(p + 4);
  h.csum_start = Host16(p + 6);
  h.csum_offset = Host16(p + 8);
  return h;
}

void WriteVnetHeader(const VnetHeader& h, std::span<std::uint8_t> frame) {
  if (frame.size() < kVnetHeaderSize) return;
  std::uint8_t* p = frame.data();
  p[0] = h.flags;
  p[1] = h.gso_type;
  std::memcpy(p + 2, &h.hdr_len, 2);
  std::memcpy(p + 4, &h.gso_size, 2);
  std::memcpy(p + 6, &h.csum_start, 2);
  std::memcpy(p + 8, &h.csum_offset, 2);
}

FrameInfo InspectFrame(std::span<const std::uint8_t> frame) {
  FrameInfo info;
  const std::size_t ip_bytes = frame.size() > kVnetHeaderSize ? frame.size() - kVnetHeaderSize : 0;
  info.wire_bytes = ip_bytes;
  info.first_segment_bytes = ip_bytes;
  if (frame.size() < kVnetHeaderSize) return info;
  info.vnet = ReadVnetHeader(frame);
  const std::uint8_t* ip = frame.data() + kVnetHeaderSize;
  if (ip_bytes < 20) return info;

  const int version = ip[0] >> 4;
  std::size_t ip_total = 0;
  if (version == 4) {
    info.ip_version = 4;
    info.tos = ip[1];
    info.ip_header = static_cast<std::size_t>(ip[0] & 0x0f) * 4;
    info.protocol = ip[9];
    ip_total = Be16(ip + 2);
    // Fragments are never segmented by TSO; leave them whole.
    const bool fragment = (Be16(ip + 6) & 0x3fff) != 0;
    if (info.ip_header < 20 || fragment) return info;
  } else if (version == 6 && ip_bytes >= 40) {
    info.ip_version = 6;
    info.tos = static_cast<std::uint8_t>(((ip[0] & 0x0f) << 4) | (ip[1] >> 4));
    info.ip_header = 40;
    info.protocol = ip[6];  // extension headers are not walked: such frames stay whole
    ip_total = 40 + std::size_t{Be16(ip + 4)};
  } else {
    return info;
  }
  if (ip_total != ip_bytes || info.protocol != kTcp) return info;
  if (ip_bytes < info.ip_header + 20) return info;
  const std::uint8_t* tcp = ip + info.ip_header;
  info.tcp_header = static_cast<std::size_t>(tcp[12] >> 4) * 4;
  if (info.tcp_header < 20 || ip_bytes < info.ip_header + info.tcp_header) return info;
  info.payload = ip_bytes - info.ip_header - info.tcp_header;

  const std::uint8_t gso = static_cast<std::uint8_t>(info.vnet.gso_type & ~vnet::kGsoEcn);
  const bool tcp_gso =
      (gso == vnet::kGsoTcpV4 && version == 4) || (gso == vnet::kGsoTcpV6 && version == 6);
  if (!tcp_gso || info.vnet.gso_size == 0 || info.payload == 0) return info;
  const std::size_t mss = info.vnet.gso_size;
  info.segments = static_cast<std::uint32_t>((info.payload + mss - 1) / mss);
  info.wire_bytes =
      std::uint64_t{info.segments} * (info.ip_header + info.tcp_header) + info.payload;
  info.first_segment_bytes = info.ip_header + info.tcp_header + std::min(mss, info.payload);
  info.splittable = true;
  return info;
}

}  // namespace wanem
