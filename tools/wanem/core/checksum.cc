#include "core/checksum.h"

namespace wanem {

std::uint64_t ChecksumAdd(std::span<const std::uint8_t> bytes, std::uint64_t sum) {
  const std::uint8_t* p = bytes.data();
  std::size_t n = bytes.size();
  while (n >= 2) {
    sum += static_cast<std::uint64_t>((p[0] << 8) | p[1]);
    p += 2;
    n -= 2;
  }
  if (n == 1) sum += static_cast<std::uint64_t>(p[0] << 8);
  return sum;
}

std::uint16_t ChecksumFinish(std::uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<std::uint16_t>(~sum & 0xffff);
}

}  // namespace wanem
