#include "sink/sink_file_system.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <vector>

namespace braid {
namespace {

/// Each call is its syscall.
class RealFileSystem final : public SinkFileSystem {
 public:
  int Stat(const std::string& path, struct stat* st) override { return ::stat(path.c_str(), st); }
  int Lstat(const std::string& path, struct stat* st) override { return ::lstat(path.c_str(), st); }
  int Access(const std::string& path) override { return ::access(path.c_str(), F_OK); }
  int Mkdir(const std::string& path, mode_t mode) override { return ::mkdir(path.c_str(), mode); }
  int Symlink(const std::string& target, const std::string& path) override {
    return ::symlink(target.c_str(), path.c_str());
  }
  ssize_t Readlink(const std::string& path, char* buf, std::size_t size) override {
    return ::readlink(path.c_str(), buf, size);
  }

  int Unlink(const std::string& path) override { return ::unlink(path.c_str()); }
  int Rename(const std::string& from, const std::string& to, bool no_replace) override {
    return no_replace ? ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE)
                      : ::rename(from.c_str(), to.c_str());
  }
  int Link(int fd, const std::string& from, const std::string& path) override {
    return from.empty()
               ? ::linkat(fd, "", AT_FDCWD, path.c_str(), AT_EMPTY_PATH)
               : ::linkat(AT_FDCWD, from.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW);
  }
  int Lchown(const std::string& path, uid_t uid, gid_t gid) override {
    return ::lchown(path.c_str(), uid, gid);
  }
  int Chown(const std::string& path, uid_t uid, gid_t gid) override {
    return ::chown(path.c_str(), uid, gid);
  }
  int Chmod(const std::string& path, mode_t mode) override { return ::chmod(path.c_str(), mode); }
  int Utimens(const std::string& path, const timespec times[2]) override {
    return ::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW);
  }
  int Open(const std::string& path, int flags, mode_t mode) override {
    return ::open(path.c_str(), flags, mode);
  }
  int Fstat(int fd, struct stat* st) override { return ::fstat(fd, st); }
  int Fstatfs(int fd, struct statfs* st) override { return ::fstatfs(fd, st); }
  int Flock(int fd, int operation) override { return ::flock(fd, operation); }
  int Ftruncate(int fd, off_t size) override { return ::ftruncate(fd, size); }
  int Fallocate(int fd, off_t size) override { return ::posix_fallocate(fd, 0, size); }
  ssize_t Pwrite(int fd, const void* data, std::size_t length, off_t offset) override {
    return ::pwrite(fd, data, length, offset);
  }
  off_t Lseek(int fd, off_t offset, int whence) override { return ::lseek(fd, offset, whence); }
  int PunchHole(int fd, off_t offset, off_t length) override {
    if (::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) == 0) return 0;
    if (errno != EOPNOTSUPP && errno != ENOSYS) return errno;
    static const std::vector<std::uint8_t> zeros(64u << 10);
    for (off_t done = 0; done < length;) {
      auto want = static_cast<std::size_t>(std::min<off_t>(length - done, 64 << 10));
      ssize_t n = ::pwrite(fd, zeros.data(), want, offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return n < 0 ? errno : EIO;
      done += n;
    }
    return 0;
  }
  ssize_t CopyRange(int in_fd, int out_fd, off_t offset, std::size_t length) override {
    off_t in_at = offset;
    off_t out_at = offset;
    ssize_t n = ::copy_file_range(in_fd, &in_at, out_fd, &out_at, length, 0);
    if (n >= 0 || (errno != EXDEV && errno != EINVAL && errno != EOPNOTSUPP && errno != ENOSYS)) {
      return n;
    }
    // A file system that cannot copy in the kernel: through a buffer.
    std::vector<std::uint8_t> buffer(std::min<std::size_t>(length, 1u << 20));
    ssize_t got = ::pread(in_fd, buffer.data(), buffer.size(), offset);
    if (got <= 0) return got;
    return ::pwrite(out_fd, buffer.data(), static_cast<std::size_t>(got), offset);
  }
  void StartWriteback(int fd, off_t offset, std::size_t length) override {
    (void)::sync_file_range(fd, offset, static_cast<off_t>(length), SYNC_FILE_RANGE_WRITE);
  }
  int Fdatasync(int fd) override { return ::fdatasync(fd); }
  int Fsync(int fd) override { return ::fsync(fd); }
  int Syncfs(int fd) override { return ::syncfs(fd); }
  int Fchown(int fd, uid_t uid, gid_t gid) override { return ::fchown(fd, uid, gid); }
  int Fchmod(int fd, mode_t mode) override { return ::fchmod(fd, mode); }
  int Futimens(int fd, const timespec times[2]) override { return ::futimens(fd, times); }
  bool IsRoot() override { return ::geteuid() == 0; }
};

}  // namespace

SinkFileSystem& RealSinkFileSystem() {
  static RealFileSystem real;
  return real;
}

}  // namespace braid
