#include "sink/partial_lock.h"

#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>
#include <thread>

#include "braid/unique_fd.h"

namespace braid {
namespace {

constexpr auto kPoll = std::chrono::milliseconds(100);

/// Non-blocking exclusive flock; 0 also where the file system has no flock.
int TryLock(SinkFileSystem& fs, int fd) {
  if (fs.Flock(fd, LOCK_EX | LOCK_NB) == 0) return 0;
  if (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS) return 0;
  return -1;
}

bool SameFile(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

int OpenAndLockPartial(SinkFileSystem& fs, const std::string& path, bool truncate) {
  // The holder before us may remove the name between our open and our lock:
  // the lock is only ours once the name still leads to the file we locked.
  for (int attempt = 0; attempt < 4; ++attempt) {
    UniqueFd fd(fs.Open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd.valid()) return -1;
    if (TryLock(fs, fd.get()) != 0) return -1;
    struct stat by_fd {};
    struct stat by_name {};
    if (fs.Fstat(fd.get(), &by_fd) != 0) return -1;
    if (fs.Lstat(path, &by_name) != 0 || !SameFile(by_fd, by_name)) continue;
    if (truncate && fs.Ftruncate(fd.get(), 0) != 0) return -1;
    return fd.Release();
  }
  errno = EWOULDBLOCK;
  return -1;
}

bool AwaitPartialFree(SinkFileSystem& fs, const std::string& path,
                      std::chrono::steady_clock::time_point deadline) {
  UniqueFd fd(fs.Open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0));
  if (!fd.valid()) return true;  // no file, no holder
  for (;;) {
    if (TryLock(fs, fd.get()) == 0) return true;  // released with the descriptor
    // Another error says nothing about a holder: OpenAndLockPartial decides.
    if (errno != EWOULDBLOCK) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPoll);
  }
}

}  // namespace braid
