#pragma once
/// XXH3 compiled for AVX2, beside the libxxhash that PayloadChecksum and
/// BlockHash128 use where the CPU lacks it. Debian builds libxxhash for plain
/// x86-64 (SSE2): about 10 GB/s a core here, against 34 GB/s for the same
/// function built for AVX2 (xxhash's own inline mode, XXH_INLINE_ALL). The
/// file is built with -mavx2: call these only where the CPU has AVX2
/// (payload_checksum.cc asks once).

#include <cstddef>
#include <cstdint>

namespace braid::detail {

/// XXH3-64 of `size` bytes, the value XXH3_64bits gives.
std::uint64_t Xxh3_64Avx2(const void* data, std::size_t size);

/// XXH3-128 of `size` bytes in canonical big-endian form, as
/// XXH128_canonicalFromHash(XXH3_128bits(...)) writes it.
void Xxh3_128CanonicalAvx2(const void* data, std::size_t size, std::uint8_t out[16]);

}  // namespace braid::detail
