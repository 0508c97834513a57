#pragma once
/// -u/--direct: which ends read or write around the page cache (O_DIRECT),
/// as bits of Options::direct and TransferParams::direct.

#include <cstdint>

namespace braid {

constexpr std::uint8_t kDirectReads = 1;   ///< s: the source's reads
constexpr std::uint8_t kDirectWrites = 2;  ///< t: the target's writes
/// O_DIRECT's unit here: offsets, lengths and buffers are multiples of it.
constexpr std::uint32_t kDirectAlignment = 4096;

}  // namespace braid
