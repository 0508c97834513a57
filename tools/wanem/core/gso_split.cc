#include "core/gso_split.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>

#include "core/checksum.h"

namespace wanem {
namespace {

void PutBe16(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 8);
  p[1] = static_cast<std::uint8_t>(v);
}

std::uint32_t GetBe32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}

void PutBe32(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

constexpr std::uint8_t kFin = 0x01;
constexpr std::uint8_t kPsh = 0x08;
constexpr std::uint8_t kCwr = 0x80;
constexpr std::uint8_t kTcp = 6;

}  // namespace

std::vector<Frame> SplitGso(const Frame& frame, const FrameInfo& info,
                            const std::vector<bool>& keep) {
  if (!info.splittable || keep.size() != info.segments) {
    throw std::logic_error("SplitGso: frame is not a splittable TCP GSO frame");
  }
  const std::size_t ip_header = info.ip_header;
  const std::size_t headers = ip_header + info.tcp_header;
  const std::size_t mss = info.vnet.gso_size;
  const std::uint8_t* src_ip = frame.bytes.data() + kVnetHeaderSize;
  const std::uint8_t* src_payload = src_ip + headers;
  const std::uint32_t seq0 = GetBe32(src_ip + ip_header + 4);
  const std::uint32_t id0 = (std::uint32_t{src_ip[4]} << 8) | src_ip[5];

  std::vector<Frame> out;
  for (std::uint32_t i = 0; i < info.segments; ++i) {
    if (!keep[i]) continue;
    const std::size_t offset = std::size_t{i} * mss;
    const std::size_t length = std::min(mss, info.payload - offset);
    Frame seg;
    seg.arrival_ns = frame.arrival_ns;
    seg.traffic_class = frame.traffic_class;
    seg.segments = 1;
    seg.wire_bytes = headers + length;
    seg.first_segment_bytes = seg.wire_bytes;
    seg.bytes.resize(kVnetHeaderSize + headers + length);
    WriteVnetHeader(VnetHeader{}, seg.bytes);
    std::uint8_t* ip = seg.bytes.data() + kVnetHeaderSize;
    std::memcpy(ip, src_ip, headers);
    std::memcpy(ip + headers, src_payload + offset, length);

    std::uint64_t pseudo = 0;
    const std::size_t tcp_length = info.tcp_header + length;
    if (info.ip_version == 4) {
      PutBe16(ip + 2, static_cast<std::uint32_t>(headers + length));
      PutBe16(ip + 4, (id0 + i) & 0xffff);
      PutBe16(ip + 10, 0);
      PutBe16(ip + 10, ChecksumFinish(ChecksumAdd(std::span(ip, ip_header))));
      pseudo = ChecksumAdd(std::span(ip + 12, 8));
    } else {
      PutBe16(ip + 4, static_cast<std::uint32_t>(tcp_length));
      pseudo = ChecksumAdd(std::span(ip + 8, 32));
    }
    pseudo += kTcp + tcp_length;

    std::uint8_t* tcp = ip + ip_header;
    PutBe32(tcp + 4, seq0 + static_cast<std::uint32_t>(offset));
    std::uint8_t flags = tcp[13];
    if (i != 0) flags = static_cast<std::uint8_t>(flags & ~kCwr);
    if (i + 1 != info.segments) flags = static_cast<std::uint8_t>(flags & ~(kFin | kPsh));
    tcp[13] = flags;
    PutBe16(tcp + 16, 0);
    PutBe16(tcp + 16, ChecksumFinish(ChecksumAdd(std::span(tcp, tcp_length), pseudo)));
    out.push_back(std::move(seg));
  }
  return out;
}

}  // namespace wanem
