#pragma once
/// -u/--direct: which ends read or write around the page cache (O_DIRECT),
/// as bits of Options::direct and TransferParams::direct.

#include <cstdint>

namespace braid {

constexpr std::uint8_t kDirectReads = 1;   ///< s: the source's reads
constexpr std::uint8_t kDirectWrites = 2;  ///< t: the target's writes
/// What O_DIRECT asks of offsets, lengths and buffers on disks of 512- and
/// 4096-byte sectors; a block that is not aligned (a file's tail) goes
/// through the page cache.
constexpr std::uint32_t kDirectAlignment = 4096;

/// Whether a read or write of `length` bytes at `offset` from or into `data`
/// may go O_DIRECT.
inline bool DirectAligned(const std::uint8_t* data, std::uint64_t offset, std::uint64_t length) {
  return reinterpret_cast<std::uintptr_t>(data) % kDirectAlignment == 0 &&
         offset % kDirectAlignment == 0 && length % kDirectAlignment == 0;
}

}  // namespace braid
