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

/// The source's file list: the entries as sent, and each top path (a SRC as
/// typed, or each match of a remote glob), from which an entry's local path
/// follows (the top path, then the entry's path after its first component).
struct SourceList {
  std::vector<FileEntry> entries;
  /// In list order, each with the id of its first entry: a glob SRC has one
  /// per match, all under the SRC's FileEntry::top.
  std::vector<std::string> top_paths;
  std::vector<std::uint32_t> top_first_ids;  ///< by top path; ascending
  std::vector<FileStamp> stamps;             ///< by id: what SourceFile::stamp says
  /// What remote SRCs resolved to (a home, a glob's matches), for -v.
  std::vector<std::string> notes;
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
  /// The paths were typed after `host:`: read them as scp does (session/remote_path.h).
  bool remote_paths = false;
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
