#include "security/crypto/payload_checksum.h"

#include <xxhash.h>

#include <algorithm>
#include <iterator>

namespace braid {

std::uint64_t PayloadChecksum(std::span<const std::uint8_t> payload) {
  return XXH3_64bits(payload.data(), payload.size());
}

std::array<std::uint8_t, 16> BlockHash128(std::span<const std::uint8_t> block) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(block.data(), block.size()));
  std::array<std::uint8_t, 16> out{};
  std::copy(std::begin(canonical.digest), std::end(canonical.digest), out.begin());
  return out;
}

}  // namespace braid
