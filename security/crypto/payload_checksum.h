#pragma once
/// The per-block checksum of the data path, also kept in the resume journal
/// for data at rest.

#include <array>
#include <cstdint>
#include <span>

namespace braid {

/// XXH3-64 of the payload: built for AVX2 where the CPU has it (34 GB/s a core
/// here), else libxxhash's (10 GB/s; zlib's crc32 does 2.5-4), so checking
/// every block costs the data path almost nothing. A checksum, not a MAC: it finds
/// corruption, not a peer that rewrites a frame consistently (docs/security.md).
std::uint64_t PayloadChecksum(std::span<const std::uint8_t> payload);

/// XXH3-128 of one block, in its canonical big-endian form (as xxh128sum
/// prints it): what the two ends compare to find the blocks of a file that
/// already match at the target. 128 bits, so two different blocks of any
/// dataset match by chance with odds far below those of a disk error.
std::array<std::uint8_t, 16> BlockHash128(std::span<const std::uint8_t> block);

/// BlockHash128 of `length` zero bytes: a hole of a sparse file hashes as
/// its zeros do, without being read. Remembers the last length asked (a
/// file's blocks are all one length but its last). One per thread.
class ZeroBlockHasher {
 public:
  std::array<std::uint8_t, 16> Hash(std::size_t length);

 private:
  std::size_t length_ = 0;
  std::array<std::uint8_t, 16> hash_{};
  bool known_ = false;
};

/// The same values from libxxhash alone, whatever the CPU: the tests hold
/// the AVX2 build to them.
std::uint64_t PayloadChecksumPortable(std::span<const std::uint8_t> payload);
std::array<std::uint8_t, 16> BlockHash128Portable(std::span<const std::uint8_t> block);

}  // namespace braid
