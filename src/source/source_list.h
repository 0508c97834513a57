#pragma once
/// Turns the SRC arguments into the transfer's file list by walking the local
/// file system (the source server runs this on its own host).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "braid/file_entry.h"
#include "braid/path_filter_rule.h"
#include "session/packed_list.h"
#include "session/target_plan.h"
#include "source/source_change.h"

namespace braid {

/// One file of the list with the name to open it by, made when it is read
/// (SourceList::File): the list keeps no path of its own beside the entry's.
struct SourceFile {
  FileEntry entry;         ///< unpacked from the list for the time it is read
  std::string local_path;  ///< what to open; "-" is stdin
  /// A regular file's size and times when it was listed: the session checks
  /// them when it opens the file and once it has read it.
  FileStamp stamp;
};

/// Each listed entry's ctime, by id (0 for all but regular files): 12 bytes
/// an entry, in blocks that are never moved, as the list's own.
class ListedTimes {
 public:
  void push_back(std::int64_t sec, std::uint32_t nsec);
  std::int64_t sec(std::uint32_t id) const { return sec_[id / kPerBlock][id % kPerBlock]; }
  std::uint32_t nsec(std::uint32_t id) const { return nsec_[id / kPerBlock][id % kPerBlock]; }

 private:
  static constexpr std::size_t kPerBlock = 1u << 16;
  std::size_t size_ = 0;
  std::vector<std::unique_ptr<std::int64_t[]>> sec_;
  std::vector<std::unique_ptr<std::uint32_t[]>> nsec_;
};

/// The source's file list: the entries as sent, and each top path (a SRC as
/// typed, or each match of a remote glob), from which an entry's local path
/// follows (the top path, then the entry's path after its first component).
struct SourceList {
  PackedList entries;
  /// In list order, each with the id of its first entry: a glob SRC has one
  /// per match, all under the SRC's FileEntry::top.
  std::vector<std::string> top_paths;
  std::vector<std::uint32_t> top_first_ids;  ///< by top path; ascending
  /// What SourceFile::stamp says of a regular file: the entry's size and
  /// mtime, and these (docs/architecture.md, "Memory per entry").
  ListedTimes ctimes;
  /// The few regular files whose entry's size is not what stat said (--size
  /// cut it): id and stat's size, by id.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> stat_sizes;
  /// What remote SRCs resolved to (a home, a glob's matches), for -v.
  std::vector<std::string> notes;
  /// Entries left out because they could not be read, each named in a warning.
  std::uint32_t not_listed = 0;
  /// -R: how long a regular file listed as a stream must stay unchanged at
  /// its end before that end is taken; 0 = off (a stream ends at its EOF).
  std::uint32_t growing_ms = 0;
  /// -N i: the one entry's local path is a shell command to read the output of.
  bool command = false;
  /// A hop of a chain (source/follow_feed): each entry is read where the sink
  /// being followed puts it (FinalPath, or its partial file while it arrives),
  /// and its stamp is empty, as the file changes while it is read.
  std::optional<TargetPlan> followed;
  SourceFile File(std::uint32_t id) const;

 private:
  FileStamp Stamp(const FileEntry& e) const;
};

struct SourceListRequest {
  std::vector<std::string> paths;
  bool recursive = false;
  bool follow_symlinks = false;              ///< -L
  std::optional<std::uint64_t> device_size;  ///< --size
  std::string host;                          ///< for messages
  /// The paths were typed after `host:`: read them as scp does (session/remote_path.h).
  bool remote_paths = false;
  /// -H: a regular file met again under another name is listed as a kHardLink
  /// to the name it was first listed by.
  bool hard_links = false;
  /// -R: regular files are listed as streams (read in order to an end that
  /// comes once they have not changed for this long); 0 = off.
  std::uint32_t growing_ms = 0;
  /// --exclude / --include: what a directory SRC holds is listed only when
  /// these let it through (source/path_filter.h); a SRC itself always is.
  std::vector<PathFilterRule> filters{};
  /// -N i: the one path is a shell command, listed as one stream named "pipe".
  bool command = false;
};

/// A missing or unreadable SRC, or an entry inside a tree that vanished or
/// cannot be read, is left out with a warning naming host, path and cause
/// (SourceList::not_listed counts them), so one bad file does not stop the
/// others; when nothing at all can be listed, the first of them is thrown as
/// BraidError(kSourceUnreadable). A directory without -r and a device without
/// --size are errors (kSourceUnreadable, kUsage). Other warnings (skipped
/// sockets and devices inside a tree) are appended to `warnings` too. With
/// remote_paths, a `~` prefix is expanded and a glob SRC lists each match
/// (a glob that matches nothing is left out as a missing SRC is; two matches
/// of one name are kUsage).
SourceList BuildSourceList(const SourceListRequest& request, std::vector<std::string>& warnings);

}  // namespace braid
