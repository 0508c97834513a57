#pragma once
/// How many streams a -s auto copy connects at its start (pure: the agent asks it
/// once the source has listed the copy).

#include <cstdint>
#include <optional>

namespace braid {

/// -s auto connects no more streams than a copy of `bytes` in `block_size` blocks can
/// use: one a block up to the opening's count (where the controller's leap goes), and
/// beyond it one for every kBlocksPerLateStream blocks. A stream beyond the opening
/// carries data only after the climb has judged the leap (a second or more), and a copy
/// with fewer blocks than that a stream is mostly done by then; each connected stream
/// costs a connection, a handshake and a thread at each end (sixteen 128 MiB copies at
/// once each connected 64 and used 2). Generous on purpose: at 256 MiB and more a copy
/// connects all 64, and on a 1 Gbit/s, 50 ms path one of 256 MiB capped at 32 was no
/// faster. An unknown size (a pipe) or block size may be anything: `max`. The result is
/// in [min, max].
int StreamsToConnect(std::optional<std::uint64_t> bytes, std::uint32_t block_size, int min,
                     int max);

/// Beyond the opening's count, a stream is connected for this many blocks of the copy.
constexpr std::uint64_t kBlocksPerLateStream = 4;

}  // namespace braid
