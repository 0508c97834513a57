#pragma once
/// Decides what the source reads next: the blocks of each file in order,
/// then that file's end marker. Pure: the reader does the IO and tells the
/// scheduler when a stream of unknown length runs dry.

#include <cstdint>
#include <optional>
#include <vector>

#include "braid/file_entry.h"

namespace braid {

struct BlockStep {
  enum class Kind { kBlock, kFileEnd } kind = Kind::kBlock;
  std::uint32_t file_id = 0;
  std::uint64_t offset = 0;  ///< block: where to read; file end: the final size
  std::uint32_t length = 0;  ///< block: bytes to read (a stream may return fewer)
};

class BlockScheduler {
 public:
  BlockScheduler(const std::vector<FileEntry>& files, std::uint32_t block_size);
  /// The next step, or nullopt when every file has ended.
  std::optional<BlockStep> Next();
  /// The reader got `got` bytes for the last block of a stream file of unknown
  /// length; fewer than asked means the stream ended there.
  void Delivered(std::uint32_t got);

 private:
  const std::vector<FileEntry>& files_;
  std::uint32_t block_size_;
  std::size_t file_ = 0;
  std::uint64_t offset_ = 0;
  bool stream_ended_ = false;
  std::optional<BlockStep> last_;
};

}  // namespace braid
