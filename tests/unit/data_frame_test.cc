#include "transport/data_frame.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "braid/error.h"
#include "security/crypto/payload_checksum.h"

namespace braid {
namespace {

constexpr std::uint32_t kMaxPayload = 1u << 20;
constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();

ErrorCode DecodeError(const FrameHeaderBytes& bytes, std::uint32_t max_payload = kMaxPayload) {
  try {
    DecodeFrameHeader(bytes, max_payload);
    ADD_FAILURE() << "header accepted";
  } catch (const BraidError& e) {
    return e.code();
  }
  return ErrorCode::kOk;
}

ErrorCode DecodeError(const FrameHeader& h, std::uint32_t max_payload = kMaxPayload) {
  return DecodeError(EncodeFrameHeader(h), max_payload);
}

FrameHeader DataHeader() {
  FrameHeader h;
  h.type = FrameType::kData;
  h.flags = 0;
  h.file_id = 0x01020304;
  h.length = 4096;
  h.offset = 0x0000123456789000ull;
  h.checksum = 0xCAFEBABEDEADBEEFull;
  h.raw_length = 4096;
  return h;
}

void ExpectHeaderEq(const FrameHeader& a, const FrameHeader& b) {
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.file_id, b.file_id);
  EXPECT_EQ(a.length, b.length);
  EXPECT_EQ(a.offset, b.offset);
  EXPECT_EQ(a.checksum, b.checksum);
  EXPECT_EQ(a.raw_length, b.raw_length);
}

FrameHeader RoundTrip(const FrameHeader& h, std::uint32_t max_payload = kMaxPayload) {
  return DecodeFrameHeader(EncodeFrameHeader(h), max_payload);
}

TEST(DataFrameTest, LayoutIsBigEndianAndFortyBytes) {
  FrameHeaderBytes b = EncodeFrameHeader(DataHeader());
  ASSERT_EQ(b.size(), kFrameHeaderSize);
  const std::vector<std::uint8_t> expected = {
      0x42, 0x52, 0x44, 0x46,                           // "BRDF"
      0x01, 0x00, 0x00, 0x00,                           // type, flags, reserved
      0x01, 0x02, 0x03, 0x04,                           // file id
      0x00, 0x00, 0x10, 0x00,                           // length
      0x00, 0x00, 0x12, 0x34, 0x56, 0x78, 0x90, 0x00,   // offset
      0x00, 0x00, 0x10, 0x00,                           // raw length
      0x00, 0x00, 0x00, 0x00,                           // reserved
      0xCA, 0xFE, 0xBA, 0xBE, 0xDE, 0xAD, 0xBE, 0xEF};  // checksum
  EXPECT_EQ(std::vector<std::uint8_t>(b.begin(), b.end()), expected);
}

TEST(DataFrameTest, DataRoundTrip) {
  FrameHeader h = DataHeader();
  ExpectHeaderEq(RoundTrip(h), h);
}

TEST(DataFrameTest, CompressedDataRoundTrip) {
  FrameHeader h = DataHeader();
  h.flags = kFlagCompressed;
  h.length = 100;
  h.raw_length = kMaxPayload;
  ExpectHeaderEq(RoundTrip(h), h);
}

TEST(DataFrameTest, DataLengthBoundaries) {
  FrameHeader h = DataHeader();
  h.length = h.raw_length = 1;
  ExpectHeaderEq(RoundTrip(h), h);
  h.length = h.raw_length = kMaxPayload;
  ExpectHeaderEq(RoundTrip(h), h);
}

TEST(DataFrameTest, DataAtTheLastPossibleOffset) {
  FrameHeader h = DataHeader();
  h.length = h.raw_length = 16;
  h.offset = kU64Max - 16;
  ExpectHeaderEq(RoundTrip(h), h);
}

TEST(DataFrameTest, FileEndRoundTrip) {
  FrameHeader h;
  h.type = FrameType::kFileEnd;
  h.file_id = 9;
  h.offset = 0xFFFFFFFFFFull;  // the final size
  h.length = 0;
  h.checksum = 0;
  ExpectHeaderEq(RoundTrip(h), h);

  h.flags = kFlagHasDigest;
  h.length = 16;  // md5, xxh128
  h.checksum = 0x12345678;
  ExpectHeaderEq(RoundTrip(h), h);
  h.length = 32;  // sha256
  ExpectHeaderEq(RoundTrip(h), h);

  h.offset = 0;  // an empty file
  ExpectHeaderEq(RoundTrip(h), h);
}

TEST(DataFrameTest, StreamEndRoundTrip) {
  for (std::uint32_t count : {1u, 2u, 63u, static_cast<std::uint32_t>(kMaxStreams)}) {
    FrameHeader h;
    h.type = FrameType::kPassEnd;
    h.file_id = count;
    ExpectHeaderEq(RoundTrip(h), h);
  }
}

TEST(DataFrameTest, BadMagicIsRejected) {
  FrameHeaderBytes b = EncodeFrameHeader(DataHeader());
  for (std::size_t i = 0; i < 4; ++i) {
    FrameHeaderBytes bad = b;
    bad[i] ^= 0x20;
    EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol) << i;
  }
}

TEST(DataFrameTest, UnknownTypeIsRejected) {
  for (std::uint8_t type :
       {std::uint8_t{0}, std::uint8_t{5}, std::uint8_t{0x81}, std::uint8_t{0xFF}}) {
    FrameHeaderBytes b = EncodeFrameHeader(DataHeader());
    b[4] = type;
    EXPECT_EQ(DecodeError(b), ErrorCode::kProtocol) << int{type};
  }
}

TEST(DataFrameTest, ReservedBitsAreRejected) {
  for (std::size_t at : {std::size_t{6}, std::size_t{7}, std::size_t{28}, std::size_t{31}}) {
    for (std::uint8_t bit = 1; bit != 0; bit = static_cast<std::uint8_t>(bit << 1)) {
      FrameHeaderBytes b = EncodeFrameHeader(DataHeader());
      b[at] = bit;
      EXPECT_EQ(DecodeError(b), ErrorCode::kProtocol) << "byte " << at << " bit " << int{bit};
    }
  }
}

TEST(DataFrameTest, UnknownFlagsAreRejected) {
  for (std::uint8_t bit = 0x04; bit != 0; bit = static_cast<std::uint8_t>(bit << 1)) {
    FrameHeader h = DataHeader();
    h.flags = bit;
    EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol) << int{bit};
    FrameHeader end;
    end.type = FrameType::kFileEnd;
    end.flags = bit;
    EXPECT_EQ(DecodeError(end), ErrorCode::kProtocol) << int{bit};
  }
}

TEST(DataFrameTest, WrongHeaderSizeIsRejected) {
  FrameHeaderBytes b = EncodeFrameHeader(DataHeader());
  std::vector<std::uint8_t> shorter(b.begin(), b.end() - 1);
  EXPECT_THROW(DecodeFrameHeader(shorter, kMaxPayload), BraidError);
  std::vector<std::uint8_t> longer(b.begin(), b.end());
  longer.push_back(0);
  try {
    DecodeFrameHeader(longer, kMaxPayload);
    ADD_FAILURE() << "33-byte header accepted";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
  }
  EXPECT_THROW(DecodeFrameHeader(std::span<const std::uint8_t>{}, kMaxPayload), BraidError);
}

TEST(DataFrameTest, DataLengthOutOfRangeIsRejected) {
  FrameHeader h = DataHeader();
  h.length = h.raw_length = 0;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.length = h.raw_length = kMaxPayload + 1;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.length = h.raw_length = 0xFFFFFFFFu;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  // The limit is the caller's, not a constant.
  h.length = h.raw_length = 4096;
  EXPECT_EQ(DecodeError(h, 4095), ErrorCode::kProtocol);
  EXPECT_NO_THROW(DecodeFrameHeader(EncodeFrameHeader(h), 4096));
}

TEST(DataFrameTest, CompressedLengthsOutOfRangeAreRejected) {
  FrameHeader h = DataHeader();
  h.flags = kFlagCompressed;
  h.length = 10;
  h.raw_length = 0;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.raw_length = kMaxPayload + 1;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.length = 0;
  h.raw_length = 10;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.length = kMaxPayload + 1;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
}

TEST(DataFrameTest, UncompressedWithTwoLengthsIsRejected) {
  FrameHeader h = DataHeader();
  h.length = 100;
  h.raw_length = 101;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.raw_length = 99;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
}

TEST(DataFrameTest, DataWithDigestFlagIsRejected) {
  FrameHeader h = DataHeader();
  h.flags = kFlagHasDigest;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
}

TEST(DataFrameTest, OffsetOverflowIsRejected) {
  FrameHeader h = DataHeader();
  h.length = h.raw_length = 16;
  h.offset = kU64Max - 15;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.offset = kU64Max;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  // Compressed: the bytes written are raw_length, so that is what must fit.
  h.flags = kFlagCompressed;
  h.length = 1;
  h.raw_length = 1000;
  h.offset = kU64Max - 999;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.offset = kU64Max - 1000;
  EXPECT_NO_THROW(RoundTrip(h));
}

TEST(DataFrameTest, FileEndWithWrongLengthIsRejected) {
  FrameHeader h;
  h.type = FrameType::kFileEnd;
  h.file_id = 1;
  h.offset = 10;
  h.length = 16;  // a digest's worth, but not flagged
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.flags = kFlagHasDigest;
  h.length = 0;  // flagged, but no digest
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  // Longer than any digest: the receiver would otherwise read it. (Lengths up to
  // 32 pass here; the receiver checks them against its algorithm.)
  for (std::uint32_t len : {33u, 64u, 4096u, 0xFFFFFFFFu}) {
    h.length = len;
    EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol) << len;
  }
}

TEST(DataFrameTest, FileEndMalformedOtherwiseIsRejected) {
  FrameHeader h;
  h.type = FrameType::kFileEnd;
  h.flags = kFlagCompressed;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.flags = 0;
  h.raw_length = 5;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
}

TEST(DataFrameTest, StreamEndWithBadCountIsRejected) {
  for (std::uint32_t count : {0u, static_cast<std::uint32_t>(kMaxStreams) + 1, 0xFFFFFFFFu}) {
    FrameHeader h;
    h.type = FrameType::kPassEnd;
    h.file_id = count;
    EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol) << count;
  }
}

TEST(DataFrameTest, StreamEndWithPayloadOrFieldsIsRejected) {
  FrameHeader base;
  base.type = FrameType::kPassEnd;
  base.file_id = 4;
  FrameHeader h = base;
  h.length = 1;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h = base;
  h.raw_length = 5;  // more streams left than there were
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h = base;
  h.offset = 1;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h = base;
  h.flags = kFlagHasDigest;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h = base;
  h.flags = kFlagCompressed;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
}

TEST(DataFrameTest, PayloadChecksumIsXxh3Of64Bits) {
  // XXH3-64 of the empty input, as the xxHash specification gives it.
  EXPECT_EQ(PayloadChecksum(std::span<const std::uint8_t>{}), 0x2D06800538D394C2ull);
  const std::vector<std::uint8_t> zeros(4096, 0);
  std::vector<std::uint8_t> flipped = zeros;
  for (std::size_t bit : {std::size_t{0}, std::size_t{17 * 8 + 3}, std::size_t{4095 * 8 + 7}}) {
    flipped = zeros;
    flipped[bit / 8] = static_cast<std::uint8_t>(1u << (bit % 8));
    EXPECT_NE(PayloadChecksum(flipped), PayloadChecksum(zeros)) << "bit " << bit;
  }
  EXPECT_EQ(PayloadChecksum(zeros), PayloadChecksum(std::vector<std::uint8_t>(4096, 0)));
}

// ---------------------------------------------------------------- pass end and resend

FrameHeader ResendHeader(std::uint32_t ranges = 3) {
  FrameHeader h;
  h.type = FrameType::kResend;
  h.offset = 2;  // the pass number
  h.length = ranges * static_cast<std::uint32_t>(kResendRangeSize);
  h.checksum = 0x0102030405060708ull;
  return h;
}

ErrorCode ResendListError(const std::vector<std::uint8_t>& payload) {
  try {
    DecodeResendList(payload);
    ADD_FAILURE() << "resend list of " << payload.size() << " bytes accepted";
  } catch (const BraidError& e) {
    return e.code();
  }
  return ErrorCode::kOk;
}

TEST(DataFrameTest, FrameTypeNumbersAreStable) {
  EXPECT_EQ(static_cast<int>(FrameType::kData), 1);
  EXPECT_EQ(static_cast<int>(FrameType::kFileEnd), 2);
  EXPECT_EQ(static_cast<int>(FrameType::kPassEnd), 3);
  EXPECT_EQ(static_cast<int>(FrameType::kResend), 4);
  EXPECT_EQ(static_cast<int>(FrameType::kSame), 5);
  EXPECT_EQ(EncodeFrameHeader(ResendHeader())[4], 4);
}

TEST(DataFrameTest, PassEndSaysHowManyStreamsTheSourceStillHas) {
  for (std::uint32_t still : {0u, 1u, 3u, 4u}) {
    FrameHeader h;
    h.type = FrameType::kPassEnd;
    h.file_id = 4;
    h.raw_length = still;
    ExpectHeaderEq(RoundTrip(h), h);
  }
}

TEST(DataFrameTest, PassEndRoundTrip) {
  FrameHeader h;
  h.type = FrameType::kPassEnd;
  h.file_id = 8;
  h.checksum = 0xFFFFFFFFFFFFFFFFull;  // not checked: there is no payload
  FrameHeader out = RoundTrip(h);
  EXPECT_EQ(out.type, FrameType::kPassEnd);
  ExpectHeaderEq(out, h);
}

TEST(DataFrameTest, ResendRoundTrip) {
  for (std::uint32_t ranges : {1u, 3u, kMaxPayload / 20}) {
    FrameHeader h = ResendHeader(ranges);
    FrameHeader out = RoundTrip(h);
    EXPECT_EQ(out.type, FrameType::kResend);
    ExpectHeaderEq(out, h);
  }
  FrameHeader h = ResendHeader();
  for (std::uint64_t pass : {std::uint64_t{0}, std::uint64_t{1}, kU64Max}) {
    h.offset = pass;
    EXPECT_EQ(RoundTrip(h).offset, pass);
  }
  // The limit is the caller's: exactly max_payload is fine when it is whole ranges.
  h = ResendHeader(5);
  EXPECT_NO_THROW(DecodeFrameHeader(EncodeFrameHeader(h), 100));
}

TEST(DataFrameTest, ResendWithFlagsIsRejected) {
  for (std::uint8_t flags : {kFlagCompressed, kFlagHasDigest, std::uint8_t{kKnownFlags}}) {
    FrameHeader h = ResendHeader();
    h.flags = flags;
    EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol) << int{flags};
  }
}

TEST(DataFrameTest, ResendWithAFileIdOrRawLengthIsRejected) {
  FrameHeader h = ResendHeader();
  h.file_id = 1;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h = ResendHeader();
  h.file_id = 0xFFFFFFFFu;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h = ResendHeader();
  h.raw_length = h.length;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
  h.raw_length = 1;
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
}

TEST(DataFrameTest, ResendLengthMustBeWholeRangesWithinTheLimit) {
  for (std::uint32_t length : {0u, 1u, 19u, 21u, 39u, 41u, 100u * 20u + 7u}) {
    FrameHeader h = ResendHeader();
    h.length = length;
    EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol) << length;
  }
  FrameHeader h = ResendHeader();
  h.length = 20;
  EXPECT_NO_THROW(RoundTrip(h));
  h.length = 120;
  EXPECT_EQ(DecodeError(h, 119), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(h, 100), ErrorCode::kProtocol);
  EXPECT_NO_THROW(DecodeFrameHeader(EncodeFrameHeader(h), 120));
  h.length = 0xFFFFFFF0u;  // a multiple of 20, far over any limit
  ASSERT_EQ(h.length % 20, 0u);
  EXPECT_EQ(DecodeError(h), ErrorCode::kProtocol);
}

FrameHeader SameHeader() {
  FrameHeader h;
  h.type = FrameType::kSame;
  h.file_id = 12;
  h.offset = 3 * kMaxPayload;
  h.raw_length = kMaxPayload;
  return h;
}

TEST(DataFrameTest, SameRoundTrip) {
  FrameHeader h = SameHeader();
  EXPECT_EQ(EncodeFrameHeader(h)[4], 5);
  ExpectHeaderEq(RoundTrip(h), h);
  h.raw_length = 1;
  h.offset = std::numeric_limits<std::uint64_t>::max() - 1;  // the last byte there can be
  ExpectHeaderEq(RoundTrip(h), h);
}

// Same and hole frames carry a range and no bytes; each is checked alike.
TEST(DataFrameTest, SameAndHoleWithPayloadFlagsOrBadLengthAreRejected) {
  for (FrameType type : {FrameType::kSame, FrameType::kHole}) {
    FrameHeader h = SameHeader();
    h.type = type;
    ExpectHeaderEq(RoundTrip(h), h);
    FrameHeader bad = h;
    bad.length = 1;  // no bytes
    EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol);
    for (std::uint8_t flag : {kFlagCompressed, kFlagHasDigest}) {
      bad = h;
      bad.flags = flag;
      EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol) << int{flag};
    }
    bad = h;
    bad.raw_length = 0;
    EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol);
    bad.raw_length = kMaxPayload + 1;
    EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol);
    bad.raw_length = 2;
    bad.offset = std::numeric_limits<std::uint64_t>::max() - 1;
    EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol);
  }
  FrameHeader hole = SameHeader();
  hole.type = FrameType::kHole;
  EXPECT_EQ(EncodeFrameHeader(hole)[4], 6);
}

TEST(DataFrameTest, TypeAfterHoleIsUnknown) {
  for (std::uint8_t type : {std::uint8_t{7}, std::uint8_t{8}, std::uint8_t{0x7F}}) {
    FrameHeaderBytes b = EncodeFrameHeader(ResendHeader());
    b[4] = type;
    EXPECT_EQ(DecodeError(b), ErrorCode::kProtocol) << int{type};
  }
}

TEST(DataFrameTest, ResendListLayoutIsBigEndian) {
  std::vector<ResendRange> ranges = {{0x01020304, 0x1112131415161718ull, 0x2122232425262728ull}};
  std::vector<std::uint8_t> b = EncodeResendList(ranges);
  const std::vector<std::uint8_t> expected = {
      0x01, 0x02, 0x03, 0x04,                           // file id
      0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,   // offset
      0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27, 0x28};  // length
  EXPECT_EQ(b, expected);
  EXPECT_EQ(b.size(), kResendRangeSize);
}

TEST(DataFrameTest, ResendListRoundTrip) {
  std::vector<ResendRange> ranges = {
      {0, 0, 4096},
      {7, 1ull << 40, 1u << 20},
      {7, 123, 0},  // length 0: the file's end frame again
      {0xFFFFFFFFu, kU64Max - 10, 10},
      {3, kU64Max, 0},
  };
  std::vector<std::uint8_t> b = EncodeResendList(ranges);
  EXPECT_EQ(b.size(), ranges.size() * kResendRangeSize);
  EXPECT_EQ(DecodeResendList(b), ranges);
  EXPECT_TRUE(EncodeResendList({}).empty());
  EXPECT_TRUE(DecodeResendList(std::span<const std::uint8_t>{}).empty());
}

TEST(DataFrameTest, EveryTruncatedResendListIsRejected) {
  std::vector<ResendRange> ranges = {{1, 0, 4096}, {2, 8192, 4096}, {3, 0, 0}};
  const std::vector<std::uint8_t> full = EncodeResendList(ranges);
  for (std::size_t n = 0; n <= full.size(); ++n) {
    // An exact-size copy, so a read past the end is caught by sanitizers.
    std::vector<std::uint8_t> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    if (n % kResendRangeSize == 0) {
      std::vector<ResendRange> got = DecodeResendList(cut);
      ASSERT_EQ(got.size(), n / kResendRangeSize) << n;
      EXPECT_TRUE(std::equal(got.begin(), got.end(), ranges.begin())) << n;
    } else {
      EXPECT_EQ(ResendListError(cut), ErrorCode::kProtocol) << n;
    }
  }
}

TEST(DataFrameTest, ResendRangeThatOverflowsIsRejected) {
  const std::vector<std::vector<ResendRange>> bad = {
      {{1, kU64Max, 1}},
      {{1, kU64Max - 9, 10}},
      {{1, 1, kU64Max}},
      {{1, kU64Max, kU64Max}},
      {{1, 0, 4096}, {2, 1ull << 63, 1ull << 63}},  // a later range
  };
  for (const auto& ranges : bad) {
    EXPECT_EQ(ResendListError(EncodeResendList(ranges)), ErrorCode::kProtocol);
  }
  // Right at the top is fine.
  std::vector<ResendRange> edge = {{1, kU64Max - 10, 10}, {1, 0, kU64Max}};
  EXPECT_EQ(DecodeResendList(EncodeResendList(edge)), edge);
}

}  // namespace
}  // namespace braid
