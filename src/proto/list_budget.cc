#include "proto/list_budget.h"

#include "braid/error.h"

namespace braid {

std::uint64_t ListBytesOf(const FileEntry& entry) {
  return kListBytesPerEntry + entry.path.size() + entry.link_target.size();
}

void ListBudget::Add(const FileEntry& entry) {
  ++entries_;
  bytes_ += ListBytesOf(entry);
  if (entries_ > limits_.max_entries) {
    throw BraidError(ErrorCode::kUsage,
                     "the file list from " + from_ + " has more than " +
                         std::to_string(limits_.max_entries) +
                         " entries (--max-entries; give a larger --max-entries to copy it)");
  }
  if (bytes_ > limits_.max_list_bytes) {
    throw BraidError(ErrorCode::kUsage,
                     "the file list from " + from_ + " is larger than " +
                         std::to_string(limits_.max_list_bytes) +
                         " bytes, names included (--max-list-bytes; give a larger "
                         "--max-list-bytes to copy it)");
  }
}

}  // namespace braid
