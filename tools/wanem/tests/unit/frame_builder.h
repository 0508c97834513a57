#pragma once
/// Builds TCP frames as TUN hands them to wanem (vnet header + IPv4/IPv6 +
/// TCP + payload), for the tests. The payload is a byte pattern, so a split
/// segment's bytes can be checked against their offset.

#include <cstdint>
#include <vector>

#include "core/frame.h"

namespace wanem::test {

struct TcpFrameSpec {
  int ip_version = 4;
  std::size_t payload = 1000;
  std::uint16_t gso_size = 0;  ///< 0: a plain packet
  std::uint8_t tos = 0;
  std::uint32_t seq = 1000;
  std::uint16_t ip_id = 0x1234;
  std::uint8_t tcp_flags = 0x18;  ///< PSH|ACK
  std::size_t tcp_options = 12;   ///< bytes, e.g. timestamps
};

inline std::uint8_t PayloadByte(std::size_t offset) {
  return static_cast<std::uint8_t>((offset * 7 + 3) & 0xff);
}

inline std::vector<std::uint8_t> BuildTcpFrame(const TcpFrameSpec& spec) {
  const std::size_t ip_header = spec.ip_version == 4 ? 20 : 40;
  const std::size_t tcp_header = 20 + spec.tcp_options;
  std::vector<std::uint8_t> f(kVnetHeaderSize + ip_header + tcp_header + spec.payload, 0);
  VnetHeader h;
  if (spec.gso_size != 0) {
    h.flags = vnet::kNeedsCsum;
    h.gso_type = spec.ip_version == 4 ? vnet::kGsoTcpV4 : vnet::kGsoTcpV6;
    h.gso_size = spec.gso_size;
    h.hdr_len = static_cast<std::uint16_t>(ip_header + tcp_header);
    h.csum_start = static_cast<std::uint16_t>(ip_header);
    h.csum_offset = 16;
  }
  WriteVnetHeader(h, f);
  std::uint8_t* ip = f.data() + kVnetHeaderSize;
  const std::size_t ip_total = ip_header + tcp_header + spec.payload;
  if (spec.ip_version == 4) {
    ip[0] = 0x45;
    ip[1] = spec.tos;
    ip[2] = static_cast<std::uint8_t>(ip_total >> 8);
    ip[3] = static_cast<std::uint8_t>(ip_total);
    ip[4] = static_cast<std::uint8_t>(spec.ip_id >> 8);
    ip[5] = static_cast<std::uint8_t>(spec.ip_id);
    ip[6] = 0x40;  // DF
    ip[8] = 64;
    ip[9] = 6;
    const std::uint8_t addrs[8] = {10, 77, 0, 1, 10, 77, 0, 2};
    for (int i = 0; i < 8; ++i) ip[12 + i] = addrs[i];
  } else {
    ip[0] = static_cast<std::uint8_t>(0x60 | (spec.tos >> 4));
    ip[1] = static_cast<std::uint8_t>(spec.tos << 4);
    const std::size_t plen = tcp_header + spec.payload;
    ip[4] = static_cast<std::uint8_t>(plen >> 8);
    ip[5] = static_cast<std::uint8_t>(plen);
    ip[6] = 6;
    ip[7] = 64;
    for (int i = 0; i < 16; ++i) {
      ip[8 + i] = static_cast<std::uint8_t>(0xfd + i);
      ip[24 + i] = static_cast<std::uint8_t>(0x20 + i);
    }
  }
  std::uint8_t* tcp = ip + ip_header;
  tcp[0] = 0x9c;  // ports 40000 -> 5201
  tcp[1] = 0x40;
  tcp[2] = 0x14;
  tcp[3] = 0x51;
  for (int i = 0; i < 4; ++i) tcp[4 + i] = static_cast<std::uint8_t>(spec.seq >> (24 - 8 * i));
  tcp[12] = static_cast<std::uint8_t>((tcp_header / 4) << 4);
  tcp[13] = spec.tcp_flags;
  tcp[14] = 0xff;
  tcp[15] = 0xff;
  for (std::size_t i = 0; i < spec.tcp_options; ++i) tcp[20 + i] = 1;  // NOPs
  for (std::size_t i = 0; i < spec.payload; ++i) tcp[tcp_header + i] = PayloadByte(i);
  return f;
}

}  // namespace wanem::test
