#include "transport/block_codec.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "braid/error.h"

namespace braid {
namespace {

using Bytes = std::vector<std::uint8_t>;

/// A block -c shrinks well: numbered lines, as in a log or a CSV.
Bytes Text(std::size_t size) {
  Bytes text;
  for (int i = 0; text.size() < size; ++i) {
    const std::string line = "row " + std::to_string(i) + ",42.5,ok\n";
    text.insert(text.end(), line.begin(), line.end());
  }
  text.resize(size);
  return text;
}

Bytes Compress(const Bytes& raw, int level = 6) {
  BlockCompressor compressor(level, raw.size());
  const EncodedBlock block = compressor.Encode(raw);
  EXPECT_TRUE(block.compressed) << "test data did not compress";
  return {block.payload.begin(), block.payload.end()};
}

/// The BraidError InflateBlock throws into `out_size` bytes, if any.
std::optional<BraidError> InflateError(const Bytes& payload, std::size_t out_size) {
  Bytes out(out_size);
  try {
    InflateBlock(payload, out);
  } catch (const BraidError& e) {
    return e;
  }
  return std::nullopt;
}

void ExpectRejected(const Bytes& payload, std::size_t out_size, const std::string& cause) {
  std::optional<BraidError> e = InflateError(payload, out_size);
  ASSERT_TRUE(e.has_value()) << "accepted; expected: " << cause;
  EXPECT_EQ(e->code(), ErrorCode::kProtocol);
  EXPECT_EQ(std::string(e->what()), "protocol error: a compressed block " + cause);
}

TEST(BlockCodecTest, CompressedBlockInflatesBackToTheSameBytes) {
  const Bytes raw = Text(1u << 20);
  const Bytes wire = Compress(raw, 1);
  EXPECT_LT(wire.size(), raw.size() / 4);
  Bytes back(raw.size());
  InflateBlock(wire, back);
  EXPECT_EQ(back, raw);
}

TEST(BlockCodecTest, OneByteBlockRoundTrips) {
  // compress2 of one byte is 9 bytes, never smaller: sent raw; a peer may
  // still send it compressed, and the exact fit must be accepted.
  const Bytes raw = {0x42};
  BlockCompressor compressor(9, 1);
  EXPECT_FALSE(compressor.Encode(raw).compressed);
  const Bytes wire = {0x78, 0x9c, 0x73, 0x02, 0x00, 0x00, 0x43, 0x00, 0x43};
  Bytes back(1);
  InflateBlock(wire, back);
  EXPECT_EQ(back, raw);
}

TEST(BlockCodecTest, IncompressibleBlockIsSentRawAndUnflagged) {
  Bytes raw(65536);
  std::mt19937 rng(7);
  std::generate(raw.begin(), raw.end(), [&] { return static_cast<std::uint8_t>(rng()); });
  BlockCompressor compressor(9, raw.size());
  const EncodedBlock block = compressor.Encode(raw);
  EXPECT_FALSE(block.compressed);
  EXPECT_EQ(block.payload.data(), raw.data());
  EXPECT_EQ(block.payload.size(), raw.size());
}

TEST(BlockCodecTest, GarbageIsNotZlibData) {
  ExpectRejected({0x13, 0x37, 0xde, 0xad, 0xbe, 0xef}, 4096,
                 "is not valid zlib data: incorrect header check");
}

TEST(BlockCodecTest, FlippedChecksumByteIsCaught) {
  Bytes wire = Compress(Text(4096));
  wire.back() ^= 0x01;  // the Adler-32 of the inflated bytes
  ExpectRejected(wire, 4096, "is not valid zlib data: incorrect data check");
}

TEST(BlockCodecTest, ZipBombIsRejectedWithoutWritingPastTheBlock) {
  const Bytes wire = Compress(Bytes(16u << 20, 0), 9);  // 16 MiB of zeros
  EXPECT_LT(wire.size(), 20000u);
  // The block buffer sits between guard bytes that must stay untouched.
  constexpr std::size_t kBlock = 4096;
  constexpr std::size_t kGuard = 4096;
  Bytes memory(kGuard + kBlock + kGuard, 0xa5);
  std::span<std::uint8_t> out(memory.data() + kGuard, kBlock);
  try {
    InflateBlock(wire, out);
    ADD_FAILURE() << "a bomb was accepted";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    EXPECT_EQ(std::string(e.what()),
              "protocol error: a compressed block inflates to more than its stated 4096 bytes");
  }
  EXPECT_TRUE(
      std::all_of(memory.begin(), memory.begin() + kGuard, [](auto b) { return b == 0xa5; }));
  EXPECT_TRUE(std::all_of(memory.end() - kGuard, memory.end(), [](auto b) { return b == 0xa5; }));
}

TEST(BlockCodecTest, OneByteMoreThanStatedIsRejected) {
  ExpectRejected(Compress(Text(4097)), 4096, "inflates to more than its stated 4096 bytes");
}

TEST(BlockCodecTest, FewerBytesThanStatedAreRejected) {
  ExpectRejected(Compress(Text(4096)), 4097, "inflates to 4096 bytes, not its stated 4097");
  ExpectRejected(Compress(Text(1000)), 65536, "inflates to 1000 bytes, not its stated 65536");
}

TEST(BlockCodecTest, EmptyPayloadIsRejected) { ExpectRejected({}, 4096, "is empty"); }

TEST(BlockCodecTest, EmptyBlockIsRejected) {
  ExpectRejected(Compress(Text(4096)), 0, "states a length of 0");
}

TEST(BlockCodecTest, CutShortStreamIsRejected) {
  const Bytes wire = Compress(Text(65536));
  // Without its Adler-32 (all bytes inflated, the stream not ended), and cut
  // in the middle of the deflate data.
  ExpectRejected({wire.begin(), wire.end() - 4}, 65536,
                 "is cut short: its zlib stream does not end");
  ExpectRejected({wire.begin(), wire.begin() + 20}, 65536,
                 "is cut short: its zlib stream does not end");
}

TEST(BlockCodecTest, BytesAfterTheStreamAreRejected) {
  Bytes wire = Compress(Text(4096));
  wire.push_back(0x00);
  wire.push_back(0x01);
  ExpectRejected(wire, 4096, "has 2 bytes after its zlib stream");
}

}  // namespace
}  // namespace braid
