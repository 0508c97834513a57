#include "security/crypto/payload_checksum.h"

#include <xxhash.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "security/crypto/xxh3_avx2.h"

namespace braid {
namespace {

/// libgcc's answer covers the OS saving the AVX state too.
bool HaveAvx2() {
  static const bool have = __builtin_cpu_supports("avx2");
  return have;
}

}  // namespace

std::uint64_t PayloadChecksum(std::span<const std::uint8_t> payload) {
  if (HaveAvx2()) return detail::Xxh3_64Avx2(payload.data(), payload.size());
  return XXH3_64bits(payload.data(), payload.size());
}

std::array<std::uint8_t, 16> BlockHash128(std::span<const std::uint8_t> block) {
  std::array<std::uint8_t, 16> out{};
  if (HaveAvx2()) {
    detail::Xxh3_128CanonicalAvx2(block.data(), block.size(), out.data());
    return out;
  }
  return BlockHash128Portable(block);
}

std::array<std::uint8_t, 16> ZeroBlockHasher::Hash(std::size_t length) {
  if (!known_ || length != length_) {
    std::vector<std::uint8_t> zeros(length);
    hash_ = BlockHash128(zeros);
    length_ = length;
    known_ = true;
  }
  return hash_;
}

std::uint64_t PayloadChecksumPortable(std::span<const std::uint8_t> payload) {
  return XXH3_64bits(payload.data(), payload.size());
}

std::array<std::uint8_t, 16> BlockHash128Portable(std::span<const std::uint8_t> block) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(block.data(), block.size()));
  std::array<std::uint8_t, 16> out{};
  std::copy(std::begin(canonical.digest), std::end(canonical.digest), out.begin());
  return out;
}

}  // namespace braid
