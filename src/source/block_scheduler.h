#pragma once
/// Decides what the source reads next: the blocks of each file in order,
/// then that file's end marker. On a resumed transfer it skips what the sink
/// kept (or only hashes it, for the whole-file digest) and files already in
/// place, and marks the blocks of files the sink compared with their hashes.
/// Pure: the reader does the IO and tells the scheduler when a stream of
/// unknown length runs dry.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "braid/file_entry.h"
#include "proto/control_message.h"
#include "session/packed_list.h"

namespace braid {

struct BlockStep {
  /// kHashOnly: read for the whole-file digest but do not send (the sink kept it).
  enum class Kind { kBlock, kFileEnd, kHashOnly } kind = Kind::kBlock;
  std::uint32_t file_id = 0;
  std::uint64_t offset = 0;  ///< block: where to read; file end: the final size
  std::uint32_t length = 0;  ///< block: bytes to read (a stream may return fewer)
  /// A block of a file the sink compared: the target's hashes of its pieces
  /// of `piece` bytes (the block's last one may be shorter), from the
  /// block's first; fewer than its pieces where the target is shorter, none
  /// where it has none. A piece that hashes alike is sent as "same".
  bool compared = false;
  std::span<const BlockHash> expected{};
  std::uint32_t piece = 0;
};

class BlockScheduler {
 public:
  /// `resume`: what the sink already has (sorted by id, ranges sorted, as the
  /// control codec guarantees). `hash_kept`: yield kept blocks as kHashOnly.
  BlockScheduler(const PackedList& files, std::uint32_t block_size,
                 std::vector<ResumeEntry> resume = {}, bool hash_kept = false);
  /// Over a copy of `files`, packed (tests).
  BlockScheduler(const std::vector<FileEntry>& files, std::uint32_t block_size,
                 std::vector<ResumeEntry> resume = {}, bool hash_kept = false);
  /// The next step, or nullopt when every file has ended.
  std::optional<BlockStep> Next();
  /// The reader got `got` bytes for the last block of a stream file of unknown
  /// length; fewer than asked means the stream ended there.
  void Delivered(std::uint32_t got);

 private:
  /// Set only by the constructor that packs a vector; `files_` refers to it then.
  std::optional<PackedList> owned_;
  const PackedList& files_;
  bool Kept(const ResumeEntry& r, std::uint64_t begin, std::uint64_t end);
  /// Sets a compared block's `expected` hashes and `piece` from `r`.
  void Expect(const ResumeEntry& r, BlockStep& block) const;
  /// What the sink has of `id` (ids come in increasing order), or nullptr.
  const ResumeEntry* ResumeOf(std::uint32_t id);

  std::uint32_t block_size_;
  /// Sorted by id, runs of complete files as one entry (the codec's order); walked with
  /// `resume_cursor_` as the files are, so a run of 2^24 files costs nothing per file.
  /// Its own (moved in: a re-run over a million compared files held it twice).
  const std::vector<ResumeEntry> resume_;
  std::size_t resume_cursor_ = 0;
  bool hash_kept_;
  std::size_t kept_cursor_ = 0;  ///< first kept range of this file that may still matter
  std::size_t file_ = 0;
  std::uint64_t offset_ = 0;
  bool stream_ended_ = false;
  std::optional<BlockStep> last_;
};

}  // namespace braid
