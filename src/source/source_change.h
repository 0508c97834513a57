#pragma once
/// Whether a source file changed while it was copied: its size, mtime and
/// ctime when it was listed, compared with what fstat says when it is opened
/// and once it has been read. A write lands in at least one of the three
/// (ctime even when the writer puts mtime back), so a copy that was read
/// while the file changed is caught instead of arriving torn. And which file
/// systems announce sizes that are not the size of what a read returns
/// (/proc says 0, /sys 4096), so their files are read as pipes are. Pure.

#include <sys/stat.h>

#include <cstdint>
#include <optional>
#include <string>

namespace braid {

/// What stat says about a file's content, as of one moment.
struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
  std::int64_t ctime_sec = 0;
  std::uint32_t ctime_nsec = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp StampOf(const struct stat& st);

/// Nothing when `now` is `listed`; else what changed, for the error message
/// ("its size went from 10 to 20 bytes", "it was modified").
std::optional<std::string> DescribeChange(const FileStamp& listed, const FileStamp& now);

/// The message of a file that changed while it was read: "HOST:PATH changed
/// while it was being copied (WHY)", without the host for a local path.
std::string ChangedMessage(const std::string& host, const std::string& path,
                           const std::string& why);

/// True for a file system whose files' sizes say nothing of what a read
/// returns (statfs's f_type: proc, sysfs, debugfs, tracefs, securityfs,
/// cgroup, configfs): its regular files are read to their end as streams.
bool SizeIsNotContent(std::int64_t fs_type);

}  // namespace braid
