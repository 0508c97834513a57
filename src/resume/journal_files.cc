#include "resume/journal_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "braid/error.h"

namespace braid {
namespace {

/// A journal holds one record per block; this bounds what Load will read.
constexpr off_t kMaxJournalSize = off_t{1} << 30;

int WriteAll(int fd, std::span<const std::uint8_t> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<std::size_t>(n);
  }
  return 0;
}

}  // namespace

void JournalFiles::Fail(const std::string& path, int err) const {
  throw BraidError(ErrorCodeForTargetErrno(err), DescribeErrno(host_, path, err));
}

void JournalFiles::SetPath(std::uint32_t id, std::string path, std::uint64_t reserve,
                           bool may_exist) {
  MutexLock lock(mutex_);
  Open& j = files_[id];
  j.path = std::move(path);
  j.reserve = reserve;
  j.may_exist = may_exist;
}

namespace {

/// Allocates the journal's future blocks without changing its size. Best
/// effort: a file system without fallocate just allocates as it goes.
void Reserve(int fd, std::uint64_t bytes) {
  if (bytes > 0) (void)::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes));
}

}  // namespace

std::optional<DecodedJournal> JournalFiles::Load(std::uint32_t id, std::string* why) const {
  std::string path;
  {
    MutexLock lock(mutex_);
    path = files_.at(id).path;
  }
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::nullopt;
    if (why != nullptr) *why = std::string("cannot read it: ") + std::strerror(errno);
    return std::nullopt;
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > kMaxJournalSize) {
    if (why != nullptr) *why = "not a regular file of a plausible size";
    return std::nullopt;
  }
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  bytes.resize(got);
  return DecodeJournal(bytes, why);
}

void JournalFiles::Append(std::uint32_t id, bool create, std::span<const std::uint8_t> bytes) {
  MutexLock lock(mutex_);
  Open& j = files_.at(id);
  if (create || !j.fd.valid()) {
    int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_TRUNC : 0);
    j.fd.Reset(::open(j.path.c_str(), flags, 0600));
    if (!j.fd.valid()) Fail(j.path, errno);
    j.may_exist = true;
    struct stat st {};
    if (::fstat(j.fd.get(), &st) != 0) Fail(j.path, errno);
    j.size = static_cast<std::uint64_t>(st.st_size);
    if (create) Reserve(j.fd.get(), j.reserve);
  }
  if (::lseek(j.fd.get(), static_cast<off_t>(j.size), SEEK_SET) < 0) Fail(j.path, errno);
  if (int err = WriteAll(j.fd.get(), bytes)) {
    // Cut the torn append off, so the next one follows the last good record.
    (void)::ftruncate(j.fd.get(), static_cast<off_t>(j.size));
    Fail(j.path, err);
  }
  j.size += bytes.size();
}

void JournalFiles::Rewrite(std::uint32_t id, std::span<const std::uint8_t> bytes) {
  MutexLock lock(mutex_);
  Open& j = files_.at(id);
  std::string temp = j.path + ".new";
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd.valid()) Fail(temp, errno);
  j.may_exist = true;
  int err = WriteAll(fd.get(), bytes);
  if (err == 0 && ::fdatasync(fd.get()) != 0) err = errno;
  if (err == 0 && ::rename(temp.c_str(), j.path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(temp.c_str());
    Fail(j.path, err);
  }
  j.fd = std::move(fd);
  j.size = bytes.size();
  Reserve(j.fd.get(), j.reserve);
}

void JournalFiles::Remove(std::uint32_t id) {
  MutexLock lock(mutex_);
  auto it = files_.find(id);
  if (it == files_.end()) return;
  it->second.fd.Reset();
  if (it->second.may_exist) ::unlink(it->second.path.c_str());
  it->second.size = 0;
}

}  // namespace braid
