#include "source/file_holes.h"

#include <unistd.h>

#include <cerrno>

namespace braid {

std::vector<FileRange> FileHolesIn(int fd, std::uint64_t begin, std::uint64_t end) {
  std::vector<FileRange> holes;
  std::uint64_t at = begin;
  while (at < end) {
    off_t data = ::lseek(fd, static_cast<off_t>(at), SEEK_DATA);
    if (data < 0) {
      // ENXIO: nothing but a hole from here to the file's end.
      if (errno == ENXIO) holes.push_back({at, end});
      break;
    }
    auto data_at = static_cast<std::uint64_t>(data);
    if (data_at > at) holes.push_back({at, std::min(data_at, end)});
    if (data_at >= end) break;
    off_t hole = ::lseek(fd, data, SEEK_HOLE);
    if (hole <= data) break;  // an error, or a file system that contradicts itself
    at = static_cast<std::uint64_t>(hole);
  }
  return holes;
}

}  // namespace braid
