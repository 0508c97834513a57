#pragma once
/// The file-system calls SinkFiles makes, behind an interface so its checks
/// (bounds, file ends, what is missing, existing targets, links in the way)
/// get unit tests against a fake, as CheckpointIo does for the checkpointer.
/// Each call behaves as the syscall it names: -1 (or, where the syscall does,
/// an errno) on failure with errno set. The real one translates, nothing more.

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <time.h>

#include <cstddef>
#include <string>

namespace braid {

class SinkFileSystem {
 public:
  virtual ~SinkFileSystem() = default;

  virtual int Stat(const std::string& path, struct stat* st) = 0;
  virtual int Lstat(const std::string& path, struct stat* st) = 0;
  /// access(path, F_OK).
  virtual int Access(const std::string& path) = 0;
  virtual int Mkdir(const std::string& path, mode_t mode) = 0;
  virtual int Symlink(const std::string& target, const std::string& path) = 0;
  virtual ssize_t Readlink(const std::string& path, char* buf, std::size_t size) = 0;
  virtual int Unlink(const std::string& path) = 0;
  /// rename(2), or renameat2(RENAME_NOREPLACE) when `no_replace`.
  virtual int Rename(const std::string& from, const std::string& to, bool no_replace) = 0;
  /// linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH) when `from` is empty, else
  /// linkat(AT_FDCWD, from, AT_FDCWD, path, AT_SYMLINK_FOLLOW) (a /proc/self/fd link).
  virtual int Link(int fd, const std::string& from, const std::string& path) = 0;
  /// Path metadata without following a final link: lchown, chown, chmod, utimensat.
  virtual int Lchown(const std::string& path, uid_t uid, gid_t gid) = 0;
  virtual int Chown(const std::string& path, uid_t uid, gid_t gid) = 0;
  virtual int Chmod(const std::string& path, mode_t mode) = 0;
  virtual int Utimens(const std::string& path, const timespec times[2]) = 0;

  /// open(2); the descriptor goes into a UniqueFd, which close(2)s it.
  virtual int Open(const std::string& path, int flags, mode_t mode) = 0;
  virtual int Fstat(int fd, struct stat* st) = 0;
  virtual int Fstatfs(int fd, struct statfs* st) = 0;
  virtual int Flock(int fd, int operation) = 0;
  virtual int Ftruncate(int fd, off_t size) = 0;
  /// posix_fallocate(fd, 0, size): returns the errno, 0 on success.
  virtual int Fallocate(int fd, off_t size) = 0;
  /// Makes [offset, offset + length) zeros that take no space: fallocate's
  /// PUNCH_HOLE, or zeros written where the file system has no holes. Returns
  /// the errno, 0 on success.
  virtual int PunchHole(int fd, off_t offset, off_t length) = 0;
  virtual ssize_t Pwrite(int fd, const void* data, std::size_t length, off_t offset) = 0;
  /// copy_file_range(2) of `length` bytes at `offset` in both files (a
  /// pread and pwrite where the file system cannot): bytes copied, 0 at the
  /// end of `in_fd`.
  virtual ssize_t CopyRange(int in_fd, int out_fd, off_t offset, std::size_t length) = 0;
  /// lseek(2), for SEEK_DATA and SEEK_HOLE: where the next data or hole starts.
  virtual off_t Lseek(int fd, off_t offset, int whence) = 0;
  /// sync_file_range(SYNC_FILE_RANGE_WRITE): starts writeback, reports nothing.
  virtual void StartWriteback(int fd, off_t offset, std::size_t length) = 0;
  virtual int Fdatasync(int fd) = 0;
  virtual int Fsync(int fd) = 0;
  virtual int Syncfs(int fd) = 0;
  virtual int Fchown(int fd, uid_t uid, gid_t gid) = 0;
  virtual int Fchmod(int fd, mode_t mode) = 0;
  virtual int Futimens(int fd, const timespec times[2]) = 0;
  /// geteuid() == 0: who may chown and link by descriptor.
  virtual bool IsRoot() = 0;
};

/// The process's file system: one stateless instance shared by every SinkFiles.
SinkFileSystem& RealSinkFileSystem();

}  // namespace braid
