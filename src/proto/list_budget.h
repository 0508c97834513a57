#pragma once
/// The caps on a file list as it is received (--max-entries,
/// --max-list-bytes). Pure: whoever receives the list counts each entry here
/// before keeping it, so a peer that announces too much is refused before it
/// costs memory.

#include <cstdint>
#include <string>

#include "braid/file_entry.h"
#include "braid/limits.h"

namespace braid {

class ListBudget {
 public:
  /// `from` names who sent the list, for the error: "the source on dtn".
  ListBudget(ListLimits limits, std::string from) : limits_(limits), from_(std::move(from)) {}
  /// Counts `entry`; throws BraidError(kUsage) naming the sender, the cap and
  /// the option that raises it once either cap is passed.
  void Add(const FileEntry& entry);
  std::uint64_t entries() const { return entries_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  ListLimits limits_;
  std::string from_;
  std::uint64_t entries_ = 0;
  std::uint64_t bytes_ = 0;
};

/// What an entry counts against --max-list-bytes: its names and kListBytesPerEntry.
std::uint64_t ListBytesOf(const FileEntry& entry);

}  // namespace braid
