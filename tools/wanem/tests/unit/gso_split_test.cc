#include "core/gso_split.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "frame_builder.h"

namespace wanem {
namespace {

using test::BuildTcpFrame;
using test::PayloadByte;
using test::TcpFrameSpec;

/// An independent RFC 1071 checksum (32-bit accumulation, byte pairs), so the
/// test does not check the code with itself.
std::uint16_t Reference(const std::vector<std::uint8_t>& bytes) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < bytes.size(); i += 2) {
    const std::uint32_t hi = bytes[i];
    const std::uint32_t lo = i + 1 < bytes.size() ? bytes[i + 1] : 0;
    sum += (hi << 8) | lo;
    sum = (sum & 0xffff) + (sum >> 16);
  }
  return static_cast<std::uint16_t>(sum);
}

std::uint32_t Be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         p[3];
}
std::uint16_t Be16(const std::uint8_t* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }

/// True when the TCP checksum verifies over pseudo header + segment.
bool TcpChecksumOk(const Frame& seg, int version) {
  const std::uint8_t* ip = seg.bytes.data() + kVnetHeaderSize;
  const std::size_t ip_header = version == 4 ? 20 : 40;
  const std::size_t tcp_len = seg.bytes.size() - kVnetHeaderSize - ip_header;
  std::vector<std::uint8_t> pseudo;
  if (version == 4) {
    pseudo.assign(ip + 12, ip + 20);
    pseudo.insert(pseudo.end(), {0, 6, static_cast<std::uint8_t>(tcp_len >> 8),
                                 static_cast<std::uint8_t>(tcp_len)});
  } else {
    pseudo.assign(ip + 8, ip + 40);
    pseudo.insert(pseudo.end(), {0, 0, static_cast<std::uint8_t>(tcp_len >> 8),
                                 static_cast<std::uint8_t>(tcp_len), 0, 0, 0, 6});
  }
  pseudo.insert(pseudo.end(), ip + ip_header, ip + ip_header + tcp_len);
  return Reference(pseudo) == 0xffff;
}

class GsoSplit : public ::testing::TestWithParam<int> {};

TEST_P(GsoSplit, SegmentsAreCorrectPackets) {
  const int version = GetParam();
  TcpFrameSpec spec;
  spec.ip_version = version;
  spec.payload = 4 * 1448 + 500;  // 5 segments, the last short
  spec.gso_size = 1448;
  spec.seq = 0xfffff000;                // wraps inside the frame
  spec.tcp_flags = 0x80 | 0x18 | 0x01;  // CWR, PSH|ACK, FIN
  Frame frame;
  frame.bytes = BuildTcpFrame(spec);
  frame.traffic_class = TrafficClass::kScavenger;
  frame.arrival_ns = 77;
  const FrameInfo info = InspectFrame(frame.bytes);
  ASSERT_TRUE(info.splittable);
  ASSERT_EQ(info.segments, 5u);
  const std::size_t headers = (version == 4 ? 20 : 40) + 32;
  EXPECT_EQ(info.wire_bytes, 5 * headers + spec.payload);

  std::vector<bool> keep{true, true, false, true, true};  // segment 2 lost
  const std::vector<Frame> segs = SplitGso(frame, info, keep);
  ASSERT_EQ(segs.size(), 4u);
  const std::uint32_t indexes[] = {0, 1, 3, 4};
  for (std::size_t k = 0; k < segs.size(); ++k) {
    const Frame& seg = segs[k];
    const std::uint32_t i = indexes[k];
    const std::size_t length = i == 4 ? 500 : 1448;
    SCOPED_TRACE("segment " + std::to_string(i));
    ASSERT_EQ(seg.bytes.size(), kVnetHeaderSize + headers + length);
    EXPECT_EQ(seg.wire_bytes, headers + length);
    EXPECT_EQ(seg.traffic_class, TrafficClass::kScavenger);
    EXPECT_EQ(seg.arrival_ns, 77);
    const VnetHeader vh = ReadVnetHeader(seg.bytes);
    EXPECT_EQ(vh.gso_type, vnet::kGsoNone);
    EXPECT_EQ(vh.flags, 0);

    const std::uint8_t* ip = seg.bytes.data() + kVnetHeaderSize;
    if (version == 4) {
      EXPECT_EQ(Be16(ip + 2), headers + length);
      EXPECT_EQ(Be16(ip + 4), 0x1234 + i);
      EXPECT_EQ(Reference(std::vector<std::uint8_t>(ip, ip + 20)), 0xffff)
          << "IPv4 header checksum";
    } else {
      EXPECT_EQ(Be16(ip + 4), 32 + length);
    }
    const std::uint8_t* tcp = ip + (version == 4 ? 20 : 40);
    EXPECT_EQ(Be32(tcp + 4), 0xfffff000u + i * 1448);
    const std::uint8_t flags = tcp[13];
    EXPECT_EQ((flags & 0x80) != 0, i == 0) << "CWR only on the first";
    EXPECT_EQ((flags & 0x01) != 0, i == 4) << "FIN only on the last";
    EXPECT_EQ((flags & 0x08) != 0, i == 4) << "PSH only on the last";
    EXPECT_TRUE(flags & 0x10) << "ACK on all";
    EXPECT_TRUE(TcpChecksumOk(seg, version));
    for (std::size_t b = 0; b < length; ++b) {
      ASSERT_EQ(tcp[32 + b], PayloadByte(i * 1448 + b)) << "payload byte " << b;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(IpVersions, GsoSplit, ::testing::Values(4, 6));

TEST(GsoSplitOdd, OddLengthLastSegmentChecksums) {
  TcpFrameSpec spec;
  spec.payload = 1448 + 333;
  spec.gso_size = 1448;
  Frame frame;
  frame.bytes = BuildTcpFrame(spec);
  const FrameInfo info = InspectFrame(frame.bytes);
  const auto segs = SplitGso(frame, info, std::vector<bool>{false, true});
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_TRUE(TcpChecksumOk(segs[0], 4));
}

TEST(InspectFrame, PlainPacketsAreOneSegment) {
  TcpFrameSpec spec;
  spec.payload = 100;
  spec.tos = 0x20;
  const auto bytes = BuildTcpFrame(spec);
  const FrameInfo info = InspectFrame(bytes);
  EXPECT_EQ(info.segments, 1u);
  EXPECT_FALSE(info.splittable);
  EXPECT_EQ(info.tos, 0x20);
  EXPECT_EQ(info.wire_bytes, bytes.size() - kVnetHeaderSize);
}

TEST(InspectFrame, Ipv6TrafficClass) {
  TcpFrameSpec spec;
  spec.ip_version = 6;
  spec.tos = 0x28;
  EXPECT_EQ(InspectFrame(BuildTcpFrame(spec)).tos, 0x28);
}

TEST(InspectFrame, GarbageIsOneUnsplittableSegment) {
  std::vector<std::uint8_t> junk(kVnetHeaderSize + 7, 0xee);
  const FrameInfo info = InspectFrame(junk);
  EXPECT_EQ(info.segments, 1u);
  EXPECT_FALSE(info.splittable);
  EXPECT_EQ(info.wire_bytes, 7u);
  EXPECT_EQ(InspectFrame(std::vector<std::uint8_t>(3)).wire_bytes, 0u);
}

}  // namespace
}  // namespace wanem
