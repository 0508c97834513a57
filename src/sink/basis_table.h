#pragma once
/// The target's versions of compared files, by file id, until each is
/// committed. A sorted vector of 24-byte records, not a map: a -e re-run
/// compares every file of a tree (a million map nodes cost ~80 MiB).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "braid/unique_fd.h"

namespace braid {

class BasisTable {
 public:
  /// A compared file's version under the final name: its size when it was
  /// hashed, and a descriptor to read it (opened when first needed).
  struct Basis {
    std::uint32_t id = 0;
    bool live = true;  ///< false once erased; dropped at the next compaction
    UniqueFd fd;
    std::uint64_t size = 0;
  };

  /// Room for `n` records (a no-op when there is room already).
  void Reserve(std::size_t n) { records_.reserve(n); }
  /// Records `id` (replacing an earlier record). Cheap when ids come in order.
  void Add(std::uint32_t id, std::uint64_t size);
  /// The live record of `id`, or nullptr.
  Basis* Find(std::uint32_t id);
  const Basis* Find(std::uint32_t id) const;
  /// Forgets `id` and closes its descriptor; a no-op for an id not recorded.
  void Erase(std::uint32_t id);
  /// Live records.
  std::size_t size() const { return records_.size() - erased_; }

 private:
  std::vector<Basis>::const_iterator LowerBound(std::uint32_t id) const;
  /// Drops erased records once they are half the vector, and its spare room.
  void CompactIfSparse();

  std::vector<Basis> records_;  ///< sorted by id, unique
  std::size_t erased_ = 0;      ///< records with live == false
};

}  // namespace braid
