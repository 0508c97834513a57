#include "security/crypto/payload_checksum.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace braid {
namespace {

std::vector<std::uint8_t> RandomBytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

/// Every length class XXH3 treats apart (0-16, 17-128, 129-240, long, the
/// stripes and the last partial one), and blocks as the data path sends them.
const std::vector<std::size_t> kLengths = {0,   1,    3,    4,    8,     9,       16,      17,
                                           127, 128,  129,  240,  241,   1023,    1024,    1025,
                                           4096, 65536, 65539, 262144, 1048576, 1048577, 4194304};

// Where the CPU has AVX2 the data path hashes with xxhash built for it; the
// two ends may differ in that, so both builds must give libxxhash's values.
TEST(PayloadChecksumTest, EveryLengthGivesLibxxhashsValue) {
  std::uint32_t seed = 1;
  for (std::size_t n : kLengths) {
    std::vector<std::uint8_t> data = RandomBytes(n, seed++);
    EXPECT_EQ(PayloadChecksum(data), PayloadChecksumPortable(data)) << n;
    EXPECT_EQ(BlockHash128(data), BlockHash128Portable(data)) << n;
  }
}

TEST(PayloadChecksumTest, KnownValues) {
  // XXH3-64 and XXH3-128 of nothing, from xxhash's own test vectors.
  EXPECT_EQ(PayloadChecksum({}), 0x2D06800538D394C2ull);
  std::array<std::uint8_t, 16> empty128 = BlockHash128({});
  const std::array<std::uint8_t, 16> expected = {0x99, 0xaa, 0x06, 0xd3, 0x01, 0x47, 0x98, 0xd8,
                                                 0x60, 0x01, 0xc3, 0x24, 0x46, 0x8d, 0x49, 0x7f};
  EXPECT_EQ(empty128, expected);
}

TEST(PayloadChecksumTest, AnOffsetBufferHashesAsAnAlignedOne) {
  std::vector<std::uint8_t> data = RandomBytes(70000, 99);
  std::vector<std::uint8_t> copy(data.size() + 7);
  std::copy(data.begin(), data.end(), copy.begin() + 7);
  std::span<const std::uint8_t> shifted(copy.data() + 7, data.size());
  EXPECT_EQ(PayloadChecksum(shifted), PayloadChecksum(data));
  EXPECT_EQ(BlockHash128(shifted), BlockHash128(data));
}

}  // namespace
TEST(PayloadChecksumTest, ZeroBlockHasherHashesZerosOfEachLengthAsked) {
  ZeroBlockHasher zeros;
  for (std::size_t length : {std::size_t{1} << 20, std::size_t{1} << 20, std::size_t{4096},
                             std::size_t{1}, std::size_t{1} << 20}) {
    std::vector<std::uint8_t> block(length, 0);
    EXPECT_EQ(zeros.Hash(length), BlockHash128(block)) << length;
  }
  std::vector<std::uint8_t> not_zero(4096, 0);
  not_zero[100] = 1;
  EXPECT_NE(zeros.Hash(4096), BlockHash128(not_zero));
}

}  // namespace braid
