#pragma once
/// The agent's guard against a lying source. Pure: it sees each entry of the
/// file list as the agent relays it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/file_entry.h"

namespace braid {

/// The agent's check of a source's file list, entry by entry, so a source
/// cannot send names it was not asked for (scp's CVE-2019-6111): ids dense
/// and in order, each entry under the name of the SRC it claims (the last
/// component of the path as typed, when that names it), and directories,
/// links or nested names only with -r. A remote SRC (`remote_paths`) that is
/// a glob may have many top-level names, each one its last component matches,
/// as scp checks a remote glob's names since that CVE.
class FileListCheck {
 public:
  FileListCheck(const std::vector<std::string>& source_paths, bool recursive,
                bool remote_paths = false);
  /// Throws BraidError(kProtocol) naming the entry.
  void Check(const FileEntry& entry);

 private:
  // No lock: only the agent's own thread uses a FileListCheck (agent/agent.cc);
  // the ends' reader threads reach the agent through its event queue only.
  std::vector<std::optional<std::string>> names_;  ///< nullopt: learnt from the first entry
  std::vector<std::string> patterns_;              ///< by SRC: a remote glob, else ""
  bool recursive_;
  std::uint32_t next_id_ = 0;
};

}  // namespace braid
