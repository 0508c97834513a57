#include "source/source_change.h"

#include <linux/magic.h>

namespace braid {
namespace {

/// configfs; <linux/magic.h> does not name it.
constexpr std::int64_t kConfigFsMagic = 0x62656570;

}  // namespace

FileStamp StampOf(const struct stat& st) {
  return {.size = static_cast<std::uint64_t>(st.st_size),
          .mtime_sec = st.st_mtim.tv_sec,
          .mtime_nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec),
          .ctime_sec = st.st_ctim.tv_sec,
          .ctime_nsec = static_cast<std::uint32_t>(st.st_ctim.tv_nsec)};
}

std::optional<std::string> DescribeChange(const FileStamp& listed, const FileStamp& now) {
  if (now == listed) return std::nullopt;
  if (now.size != listed.size) {
    return "its size went from " + std::to_string(listed.size) + " to " + std::to_string(now.size) +
           " bytes";
  }
  if (now.mtime_sec != listed.mtime_sec || now.mtime_nsec != listed.mtime_nsec) {
    return "it was modified";
  }
  return "its ctime changed: it was written to, or its mode, owner or links changed";
}

std::string ChangedMessage(const std::string& host, const std::string& path,
                           const std::string& why) {
  return (host.empty() ? "" : host + ":") + path + " changed while it was being copied (" + why +
         "); copy it again once it no longer changes";
}

bool SizeIsNotContent(std::int64_t fs_type) {
  switch (fs_type) {
    case PROC_SUPER_MAGIC:
    case SYSFS_MAGIC:
    case DEBUGFS_MAGIC:
    case TRACEFS_MAGIC:
    case SECURITYFS_MAGIC:
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
    case kConfigFsMagic:
      return true;
    default:
      return false;
  }
}

}  // namespace braid
