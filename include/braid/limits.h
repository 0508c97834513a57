#pragma once
/// Limits every layer shares: the command line, the control and data protocols
/// and the engine. A header of its own, with only <cstdint>, so that transport/
/// and proto/ can use them without pulling in Options.

#include <cstdint>

namespace braid {

/// Most parallel data streams a copy runs (-s 1..64). Also a protocol bound:
/// the stream count in TransferParams and PassEnd, a stream's handshake index
/// (< kMaxStreams) and the samples in one Progress message.
constexpr int kMaxStreams = 64;

/// -s auto's opening: where the stream controller leaps when the first streams see
/// random loss, and so the most streams a copy that can use them connects before the
/// climb goes on (agent/streams_to_connect).
constexpr int kOpeningStreams = 16;

/// --max-entries and --max-list-bytes by default: a tree ten times the size of
/// a large home directory, and far more than such a list costs in memory
/// (docs/architecture.md, "Memory per entry").
constexpr std::uint64_t kDefaultMaxEntries = 10'000'000;
constexpr std::uint64_t kDefaultMaxListBytes = 4ull << 30;
/// What one entry counts against --max-list-bytes besides its names: about
/// its fixed fields on the wire.
constexpr std::uint64_t kListBytesPerEntry = 64;

/// The caps on a file list, checked where the list is received: by the agent
/// from the source, by the sink from the agent.
struct ListLimits {
  std::uint64_t max_entries = kDefaultMaxEntries;
  std::uint64_t max_list_bytes = kDefaultMaxListBytes;
  bool operator==(const ListLimits&) const = default;
};

}  // namespace braid
