#pragma once
/// Turns the SRC arguments into the transfer's file list by walking the local
/// file system (the source server runs this on its own host).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/file_entry.h"
#include "source/source_change.h"

namespace braid {

/// One file of the list with the name to open it by, made when it is read
/// (SourceList::File): the list keeps no path of its own beside the entry's.
struct SourceFile {
  const FileEntry& entry;
  std::string local_path;  ///< what to open; "-" is stdin
  /// A regular file's size and times when it was listed: the session checks
  /// them when it opens the file and once it has read it.
  FileStamp stamp;
};

/// The source's file list: the entries as sent, and each SRC as typed, from
/// which an entry's local path follows (the SRC, then the entry's path after
/// its first component).
struct SourceList {
  std::vector<FileEntry> entries;
  std::vector<std::string> top_paths;  ///< by FileEntry::top
  std::vector<FileStamp> stamps;       ///< by id: what SourceFile::stamp says
  /// Entries left out because they could not be read, each named in a warning.
  std::uint32_t not_listed = 0;
  SourceFile File(std::uint32_t id) const;
};

struct SourceListRequest {
  std::vector<std::string> paths;
  bool recursive = false;
  bool follow_symlinks = false;              ///< -L
  std::optional<std::uint64_t> device_size;  ///< --size
  std::string host;                          ///< for messages
};

/// A missing or unreadable SRC, or an entry inside a tree that vanished or
/// cannot be read, is left out with a warning naming host, path and cause
/// (SourceList::not_listed counts them), so one bad file does not stop the
/// others; when nothing at all can be listed, the first of them is thrown as
/// BraidError(kSourceUnreadable). A directory without -r and a device without
/// --size are errors (kSourceUnreadable, kUsage). Other warnings (skipped
/// sockets and devices inside a tree) are appended to `warnings` too.
SourceList BuildSourceList(const SourceListRequest& request, std::vector<std::string>& warnings);

}  // namespace braid
