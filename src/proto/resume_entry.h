#pragma once
/// The resume list's entry: what the sink already has of one file (or of a
/// run of complete files), sent in SinkReady and relayed in SourceStart.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace braid {

/// A byte range [begin, end) of one file.
using ByteRange = std::pair<std::uint64_t, std::uint64_t>;
/// XXH3-128 of one block, canonical (big-endian) bytes.
using BlockHash = std::array<std::uint8_t, 16>;
/// What the sink already has of one file, so the source sends only the rest.
/// A run of complete files is one entry (`count` ids from `id`), as on the
/// wire: a resume list of 2^24 complete files costs 16 bytes, not 2^24 entries.
/// 24 bytes an entry, since a -e re-run keeps one per file of a tree at every
/// process: the ranges or hashes, which most entries lack, sit behind a pointer,
/// in one allocation with their count (a compared file of one piece costs 48 bytes
/// there; two vectors in a struct cost 96).
class ResumeEntry {
 public:
  std::uint32_t id = 0;
  std::uint32_t count = 1;  ///< complete: files id .. id+count-1; otherwise 1
  /// compared: the bytes each hash covers (4 KiB..64 MiB; a source uses
  /// them only when they divide its block size).
  std::uint32_t piece = 0;
  bool complete = false;  ///< already in place under its final name: send nothing
  /// The target's older version, piece by piece (`compared`): a piece whose
  /// hash matches is sent as a "same" frame, not as data.
  bool compared = false;

  ResumeEntry() = default;
  ResumeEntry(const ResumeEntry& other);
  ResumeEntry& operator=(const ResumeEntry& other);
  ResumeEntry(ResumeEntry&&) noexcept = default;
  ResumeEntry& operator=(ResumeEntry&&) noexcept = default;
  ~ResumeEntry() = default;

  /// A run of `count` complete files from `first`.
  static ResumeEntry Complete(std::uint32_t first, std::uint32_t count = 1);
  static ResumeEntry Partial(std::uint32_t id, std::vector<ByteRange> kept);
  static ResumeEntry Compared(std::uint32_t id, std::uint32_t piece, std::vector<BlockHash> hashes);
  /// Verified ranges of the partial file, in order.
  std::span<const ByteRange> kept() const;
  /// compared: the target's hashes, one a piece.
  std::span<const BlockHash> block_hashes() const;
  /// One past the last id this entry names.
  std::uint64_t end() const { return std::uint64_t{id} + (complete ? count : 1); }

 private:
  /// Keeps a copy of `n` items of 16 bytes (ranges or hashes) from `from`.
  void SetItems(const void* from, std::size_t n);
  std::size_t ItemCount() const;
  /// The ranges (a partial entry) or hashes (a compared one), which are never both:
  /// null when there are none, else a 16-byte header holding their count, then them.
  std::unique_ptr<std::byte[]> items_;
};
static_assert(sizeof(ByteRange) == 16 && sizeof(BlockHash) == 16, "items are 16 bytes");
static_assert(sizeof(ResumeEntry) <= 24, "ResumeEntry grew: a million of them are kept");
/// Appends `id` as complete to `resume`, extending the last run when it ends just before `id`.
void AppendComplete(std::vector<ResumeEntry>& resume, std::uint32_t id);
/// Ids the resume list names, complete or partial.
std::uint64_t ResumeFileCount(const std::vector<ResumeEntry>& resume);

}  // namespace braid
