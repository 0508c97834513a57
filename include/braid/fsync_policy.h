#pragma once
/// -y, --fsync: what the sink waits for before it renames a file into place
/// (docs/braid.1 says what each promises after a crash).

#include <cstdint>

namespace braid {

enum class FsyncPolicy : std::uint8_t {
  /// Rename once complete and verified, without waiting for the disk (as
  /// scp, rsync, GridFTP and bbcp do). Resume journals are written only when
  /// a copy fails, after the sync they need.
  kNone = 0,
  /// Data: the partial file is synced before the rename, and checkpoints
  /// journal only synced blocks (the default).
  kData = 1,
  /// Data and directory entries: also the directories that gained a name
  /// (renames, and directories and links created with -r).
  kDataAndDirs = 2,
};

/// The largest value a wire decoder accepts.
constexpr std::uint8_t kMaxFsyncPolicy = 2;

}  // namespace braid
