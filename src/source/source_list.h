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
  SourceFile File(std::uint32_t id) const;
};

struct SourceListRequest {
  std::vector<std::string> paths;
  bool recursive = false;
  bool follow_symlinks = false;              ///< -L
  std::optional<std::uint64_t> device_size;  ///< --size
  std::string host;                          ///< for messages
};

/// Throws BraidError(kSourceUnreadable) naming host and path for a missing or
/// unreadable source, a directory without -r, or a device without --size.
/// Warnings (skipped sockets and devices inside a tree) are appended to `warnings`.
SourceList BuildSourceList(const SourceListRequest& request, std::vector<std::string>& warnings);

}  // namespace braid
