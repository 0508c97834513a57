#pragma once
/// Where each file of a transfer lands, by scp's and cp's rules. Pure: the
/// sink stats the target and passes what it found.

#include <string>
#include <string_view>
#include <vector>

#include "braid/file_entry.h"
#include "session/packed_list.h"

namespace braid {

/// What the sink found at the target path.
struct TargetInfo {
  bool exists = false;
  bool is_directory = false;
  bool is_stream = false;  ///< stdout, a FIFO or a character device: written in order
  /// What the target's tree-root mark (TreeRootMarkPath) reads: the name of
  /// the directory an interrupted copy was making the target into; "" if none.
  std::string marked_root;
};

struct TargetPlan {
  enum class Mode {
    kIntoDirectory,  ///< target is a directory: each SRC lands inside it by name
    kAsTarget,       ///< one SRC, which becomes the target path itself
    kStream,         ///< one file, written in order to a non-seekable target
  } mode = Mode::kAsTarget;
  std::string base;  ///< the target path, trailing slashes removed
};

/// Throws BraidError(kTargetUnwritable) when the sources cannot go there:
/// several sources onto a non-directory, a file onto a missing directory
/// named with a trailing slash (a tree there becomes it, as with cp -r), a
/// directory onto a stream. Sources count as `top_count` or as the list's
/// top-level entries, whichever is more (a remote glob's matches).
TargetPlan PlanTarget(const std::string& target, const TargetInfo& info, std::size_t top_count,
                      const PackedList& entries, const std::string& host);
TargetPlan PlanTarget(const std::string& target, const TargetInfo& info, std::size_t top_count,
                      const std::vector<FileEntry>& entries, const std::string& host);

/// The sink's check of the whole list before it creates anything: no path
/// twice, and every nested entry inside a directory listed before it, so the
/// sink never creates a name through a link (one the list declares, or one
/// already in the target). Throws BraidError(kProtocol).
/// Its index of the paths costs at most 8 bytes an entry while it runs, not a
/// hash node and a bucket a path (about 40 bytes).
void CheckListShape(const PackedList& entries);
void CheckListShape(const std::vector<FileEntry>& entries);

/// The final path of one entry under the plan (entry.path is already safe).
std::string FinalPath(const TargetPlan& plan, std::string_view entry_path);
inline std::string FinalPath(const TargetPlan& plan, const FileEntry& entry) {
  return FinalPath(plan, std::string_view(entry.path));
}

/// Beside a target that a copy of one directory is making (cp's and scp's
/// rule: a missing target becomes the directory): a symbolic link whose text
/// is that directory's name, there until the copy has finished. The same
/// command run again after an interruption finds the target existing, and
/// without the mark would copy the tree into it instead of resuming it.
std::string TreeRootMarkPath(const std::string& base);

/// The partial file beside a final path: never mistaken for a finished copy.
std::string PartialPath(const std::string& final_path);
/// The resume journal beside the partial file: "NAME.braid-journal".
std::string JournalPath(const std::string& final_path);

}  // namespace braid
