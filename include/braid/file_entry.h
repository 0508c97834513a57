#pragma once
/// One item of a transfer's file list, as the source describes it.

#include <cstdint>
#include <limits>
#include <string>

namespace braid {

enum class FileKind : std::uint8_t {
  kRegular = 1,    ///< a regular file: seekable, size known
  kDirectory = 2,  ///< created by the sink; carries no data
  kSymlink = 3,    ///< recreated as a link (never followed) inside -r
  kStream = 4,     ///< stdin, a pipe or a device: read once, in order
  /// With -H: another name for a regular file listed before it (its path is
  /// `link_target`), made at the sink as a hard link once that file is in place.
  kHardLink = 5,
};

constexpr std::uint64_t kUnknownSize = std::numeric_limits<std::uint64_t>::max();

struct FileEntry {
  std::uint32_t id = 0;   ///< dense, in list order; data frames name files by it
  std::uint16_t top = 0;  ///< which SRC argument this came from
  FileKind kind = FileKind::kRegular;
  std::string path;        ///< relative, '/'-separated, first component is the SRC's name
  std::uint64_t size = 0;  ///< kUnknownSize for a stream until its end
  std::uint32_t mode = 0644;
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
  std::uint32_t uid = 0;  ///< numeric owner, applied with -p when the sink runs as root
  std::uint32_t gid = 0;
  std::string link_target;  ///< for kSymlink; for kHardLink the path of the file it names
  /// A hash of samples of a regular file's content (0 for small files), so a
  /// resumed copy notices a different source of the same size and time.
  std::uint64_t fingerprint = 0;
  /// A regular file that has holes (fewer blocks on disk than its size needs):
  /// the source sends its holes as hole frames and the sink reserves no space
  /// for them.
  bool sparse = false;
};

/// Smaller files have no fingerprint and no resume journal: re-sending them
/// costs less than keeping track of them.
constexpr std::uint64_t kResumeMinSize = 4u << 20;

}  // namespace braid
