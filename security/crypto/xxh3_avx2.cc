#include "security/crypto/xxh3_avx2.h"

// The whole of xxhash, static and inline in this file only, built for AVX2
// (CMakeLists.txt compiles this file with -mavx2).
#define XXH_INLINE_ALL
#define XXH_VECTOR XXH_AVX2
#include <xxhash.h>

#include <cstring>

namespace braid::detail {

std::uint64_t Xxh3_64Avx2(const void* data, std::size_t size) { return XXH3_64bits(data, size); }

void Xxh3_128CanonicalAvx2(const void* data, std::size_t size, std::uint8_t out[16]) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(data, size));
  std::memcpy(out, canonical.digest, sizeof canonical.digest);
}

}  // namespace braid::detail
