#include "agent/streams_to_connect.h"

#include <algorithm>

#include "braid/limits.h"

namespace braid {

int StreamsToConnect(std::optional<std::uint64_t> bytes, std::uint32_t block_size, int min,
                     int max) {
  if (!bytes || block_size == 0) return max;
  const std::uint64_t blocks =
      std::max<std::uint64_t>(1, *bytes / block_size + (*bytes % block_size != 0 ? 1 : 0));
  constexpr auto opening = static_cast<std::uint64_t>(kOpeningStreams);
  const std::uint64_t worth =
      blocks <= opening ? blocks : std::max(opening, blocks / kBlocksPerLateStream);
  const auto capped =
      static_cast<int>(std::min<std::uint64_t>(worth, static_cast<std::uint64_t>(max)));
  return std::max(min, capped);
}

}  // namespace braid
