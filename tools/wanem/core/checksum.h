#pragma once
/// The Internet checksum (RFC 1071), for the headers of split segments.

#include <cstdint>
#include <span>

namespace wanem {

/// Adds `bytes` as big-endian 16-bit words to `sum` (odd length padded with a
/// zero byte). Keep sums unfolded between calls; only the last call may be odd.
std::uint64_t ChecksumAdd(std::span<const std::uint8_t> bytes, std::uint64_t sum = 0);

/// Folds a running sum to 16 bits and complements it: the value for the header.
std::uint16_t ChecksumFinish(std::uint64_t sum);

}  // namespace wanem
