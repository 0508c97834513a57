#pragma once
/// A transfer's file list kept packed: one fixed record an entry, every path
/// in an arena, the few symlink targets, fingerprints and changes of owner
/// aside. A FileEntry costs 120 bytes and a heap string past 15 characters;
/// here an entry costs 32 bytes and its path's length (docs/architecture.md, "Memory per entry"),
/// so a million-entry list fits in tens of MiB. Both are kept in blocks of a
/// fixed size, not in vectors that double: the list arrives in chunks of
/// unknown total, and a vector's doubling held the old and the new array at
/// once (1.5 times the list at its peak). Pure.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "braid/file_entry.h"

namespace braid {

class PackedList {
 public:
  PackedList() = default;
  /// Packs `entries` (tests, and callers that hold a vector already).
  explicit PackedList(const std::vector<FileEntry>& entries);

  /// Appends `e`, whose id must be size(). Throws BraidError(kProtocol) for an
  /// id out of order, a mode past 07777, a path longer than 65535 bytes, or
  /// names past 4 GiB (the decoder refuses the mode already).
  void Add(const FileEntry& e);

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

  std::string_view path(std::uint32_t id) const;
  FileKind kind(std::uint32_t id) const { return At(id).kind; }
  std::uint64_t file_size(std::uint32_t id) const { return At(id).size; }
  std::uint32_t mode(std::uint32_t id) const { return At(id).mode; }
  std::uint16_t top(std::uint32_t id) const { return At(id).top; }
  bool sparse(std::uint32_t id) const { return At(id).sparse; }
  std::uint32_t uid(std::uint32_t id) const { return OwnerOf(id).uid; }
  std::uint32_t gid(std::uint32_t id) const { return OwnerOf(id).gid; }
  std::int64_t mtime_sec(std::uint32_t id) const { return At(id).mtime_sec; }
  std::uint32_t mtime_nsec(std::uint32_t id) const { return At(id).mtime_nsec; }
  /// Empty unless a symlink or a hard link.
  std::string_view link_target(std::uint32_t id) const;
  /// 0 for files without one (below kResumeMinSize).
  std::uint64_t fingerprint(std::uint32_t id) const;
  /// Whether the entry carries data (a regular file or a stream).
  bool carries_data(std::uint32_t id) const {
    return kind(id) == FileKind::kRegular || kind(id) == FileKind::kStream;
  }

  /// The entry as a FileEntry, made on demand (its strings are copies).
  FileEntry Entry(std::uint32_t id) const;

  /// The bytes the list has allocated, for the memory tests and the docs' table.
  std::size_t bytes_used() const;

  /// Entries a block of fixed records holds (2.5 MiB), and the bytes of a
  /// block of paths; a path never spans two blocks.
  static constexpr std::size_t kEntriesPerBlock = 1u << 16;
  static constexpr std::size_t kNameBlockBytes = 1u << 20;

 private:
  struct Fixed {
    std::uint64_t size;
    std::int64_t mtime_sec;
    std::uint32_t mtime_nsec;
    /// The path's block (the high bits) and offset in it (the low 20).
    std::uint32_t name_at;
    std::uint16_t name_length;
    std::uint16_t mode;
    std::uint16_t top;
    FileKind kind;
    bool sparse;
  };
  static_assert(sizeof(Fixed) == 32, "an entry's fixed part is the table's 32 bytes");

  /// Sparse parts, by id ascending (ids arrive in order): a tree has few links
  /// and few files large enough for a fingerprint.
  /// From `first` on, until the next run, entries have this owner: a tree
  /// most often has one, so a run costs less than 8 bytes an entry would.
  struct OwnerRun {
    std::uint32_t first;
    std::uint32_t uid;
    std::uint32_t gid;
  };
  const OwnerRun& OwnerOf(std::uint32_t id) const;

  struct Link {
    std::uint32_t id;
    std::uint32_t begin;  ///< in `link_names_`, running to the next one's begin
  };

  const Fixed& At(std::uint32_t id) const {
    return fixed_[id / kEntriesPerBlock][id % kEntriesPerBlock];
  }
  /// Copies `path` into the arena; returns where it went (Fixed::name_at).
  std::uint32_t Store(const std::string& path);

  std::size_t count_ = 0;
  std::vector<std::unique_ptr<Fixed[]>> fixed_;
  /// Each reserved at kNameBlockBytes and never grown past it.
  std::vector<std::string> names_;
  std::vector<OwnerRun> owners_;
  std::vector<Link> links_;
  std::string link_names_;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> fingerprints_;
};

}  // namespace braid
