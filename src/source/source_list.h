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

struct SourceFile {
  FileEntry entry;
  std::string local_path;  ///< what to open; "-" is stdin
  /// A regular file's size and times when it was listed: the session checks
  /// them when it opens the file and once it has read it.
  FileStamp stamp;
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
std::vector<SourceFile> BuildSourceList(const SourceListRequest& request,
                                        std::vector<std::string>& warnings);

}  // namespace braid
