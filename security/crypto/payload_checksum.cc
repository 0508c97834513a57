#include "security/crypto/payload_checksum.h"

#include <xxhash.h>

namespace braid {

std::uint64_t PayloadChecksum(std::span<const std::uint8_t> payload) {
  return XXH3_64bits(payload.data(), payload.size());
}

}  // namespace braid
