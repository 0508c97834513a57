#include "braid/wire.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "braid/error.h"
#include "thrown_code.h"

namespace braid {
namespace {

using Bytes = std::vector<std::uint8_t>;

TEST(WireTest, IntegersAreBigEndian) {
  WireWriter w;
  w.U8(0x01);
  w.U16(0x0203);
  w.U32(0x04050607);
  w.U64(0x08090A0B0C0D0E0Full);
  EXPECT_EQ(w.data(), (Bytes{0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0x0C,
                             0x0D, 0x0E, 0x0F}));
}

TEST(WireTest, ALengthWrittenLaterOverwritesItsPlaceholderOnly) {
  WireWriter w;
  w.U8(9);
  const std::size_t at = w.size();
  w.U32(0);
  w.U16(0x0102);
  w.U32At(at, 0x0A0B0C0D);
  EXPECT_EQ(w.data(), (Bytes{9, 0x0A, 0x0B, 0x0C, 0x0D, 0x01, 0x02}));
  // Past what was written is a caller's bug, not a write out of bounds.
  EXPECT_THROW(w.U32At(4, 1), std::out_of_range);
}

TEST(WireTest, StringIsLengthPrefixed) {
  WireWriter w;
  w.String("ab");
  EXPECT_EQ(w.data(), (Bytes{0, 0, 0, 2, 'a', 'b'}));
}

TEST(WireTest, RoundTripOfEveryField) {
  WireWriter w;
  w.U8(0xFF);
  w.U16(0xBEEF);
  w.U32(0xDEADBEEF);
  w.U64(std::numeric_limits<std::uint64_t>::max());
  w.U64(0);
  w.String("hello");
  w.String("");
  w.String(std::string("a\0b", 3));
  const Bytes raw{9, 8, 7};
  w.Bytes(raw);
  Bytes buf = w.Take();

  WireReader r(buf);
  EXPECT_EQ(r.U8(), 0xFF);
  EXPECT_EQ(r.U16(), 0xBEEF);
  EXPECT_EQ(r.U32(), 0xDEADBEEFu);
  EXPECT_EQ(r.U64(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ(r.U64(), 0u);
  EXPECT_EQ(r.String(100), "hello");
  EXPECT_EQ(r.String(0), "");
  EXPECT_EQ(r.String(3), std::string("a\0b", 3));
  EXPECT_EQ(r.remaining(), 3u);
  auto tail = r.Bytes(3);
  EXPECT_EQ(Bytes(tail.begin(), tail.end()), raw);
  EXPECT_TRUE(r.AtEnd());
  EXPECT_EQ(r.remaining(), 0u);
  EXPECT_NO_THROW(r.ExpectEnd());
}

TEST(WireTest, TakeEmptiesTheWriter) {
  WireWriter w;
  w.U32(1);
  Bytes first = w.Take();
  EXPECT_EQ(first.size(), 4u);
  w.U8(7);
  EXPECT_EQ(w.data(), Bytes{7});
}

TEST(WireTest, EmptyReaderIsAtEnd) {
  WireReader r(std::span<const std::uint8_t>{});
  EXPECT_TRUE(r.AtEnd());
  EXPECT_NO_THROW(r.ExpectEnd());
  EXPECT_EQ(ThrownCode([&] { r.U8(); }), ErrorCode::kProtocol);
}

TEST(WireTest, TruncatedIntegersThrowProtocol) {
  const Bytes buf{1, 2, 3, 4, 5, 6, 7};
  for (std::size_t n = 0; n < 8; ++n) {
    std::span<const std::uint8_t> in(buf.data(), std::min(n, buf.size()));
    if (n < 1) {
      EXPECT_EQ(ThrownCode([&] { WireReader(in).U8(); }), ErrorCode::kProtocol);
    }
    if (n < 2) {
      EXPECT_EQ(ThrownCode([&] { WireReader(in).U16(); }), ErrorCode::kProtocol) << n;
    }
    if (n < 4) {
      EXPECT_EQ(ThrownCode([&] { WireReader(in).U32(); }), ErrorCode::kProtocol) << n;
    }
    EXPECT_EQ(ThrownCode([&] { WireReader(in).U64(); }), ErrorCode::kProtocol) << n;
  }
}

TEST(WireTest, FailedReadConsumesNothing) {
  const Bytes buf{0xAB, 0xCD, 0xEF};
  WireReader r(buf);
  EXPECT_EQ(ThrownCode([&] { r.U32(); }), ErrorCode::kProtocol);
  EXPECT_EQ(r.remaining(), 3u);
  EXPECT_EQ(r.U16(), 0xABCD);
  EXPECT_EQ(r.U8(), 0xEF);
}

TEST(WireTest, TruncatedBytesThrowProtocol) {
  const Bytes buf{1, 2, 3};
  WireReader r(buf);
  EXPECT_EQ(ThrownCode([&] { r.Bytes(4); }), ErrorCode::kProtocol);
  EXPECT_EQ(r.Bytes(0).size(), 0u);
  EXPECT_EQ(r.Bytes(3).size(), 3u);
  EXPECT_EQ(ThrownCode([&] { r.Bytes(1); }), ErrorCode::kProtocol);
}

TEST(WireTest, HugeBytesRequestDoesNotOverflow) {
  const Bytes buf{1, 2, 3};
  WireReader r(buf);
  r.U8();
  EXPECT_EQ(ThrownCode([&] { r.Bytes(std::numeric_limits<std::size_t>::max()); }),
            ErrorCode::kProtocol);
  EXPECT_EQ(r.remaining(), 2u);
}

TEST(WireTest, TruncatedStringBodyThrowsProtocol) {
  WireWriter w;
  w.String("hello");
  Bytes buf = w.Take();
  for (std::size_t n = 0; n < buf.size(); ++n) {
    WireReader r(std::span<const std::uint8_t>(buf.data(), n));
    EXPECT_EQ(ThrownCode([&] { r.String(100); }), ErrorCode::kProtocol) << "prefix " << n;
  }
}

TEST(WireTest, StringOverItsMaxThrowsProtocol) {
  WireWriter w;
  w.String("hello");
  Bytes buf = w.Take();
  EXPECT_EQ(WireReader(buf).String(5), "hello");
  EXPECT_EQ(ThrownCode([&] { WireReader(buf).String(4); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { WireReader(buf).String(0); }), ErrorCode::kProtocol);
}

TEST(WireTest, HugeDeclaredStringLengthThrowsBeforeAllocating) {
  const Bytes buf{0xFF, 0xFF, 0xFF, 0xFF, 'x'};
  EXPECT_EQ(ThrownCode([&] { WireReader(buf).String(std::numeric_limits<std::size_t>::max()); }),
            ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { WireReader(buf).String(1); }), ErrorCode::kProtocol);
}

TEST(WireTest, ExpectEndWithTrailingBytesThrowsProtocol) {
  const Bytes buf{0, 1, 2};
  WireReader r(buf);
  EXPECT_EQ(r.U16(), 1);
  EXPECT_FALSE(r.AtEnd());
  EXPECT_EQ(r.remaining(), 1u);
  EXPECT_EQ(ThrownCode([&] { r.ExpectEnd(); }), ErrorCode::kProtocol);
  EXPECT_EQ(r.U8(), 2);
  EXPECT_NO_THROW(r.ExpectEnd());
}

TEST(WireTest, FailThrowsProtocolWithReason) {
  try {
    WireReader::Fail("custom reason");
    ADD_FAILURE() << "Fail returned";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    EXPECT_NE(std::string(e.what()).find("custom reason"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace braid
