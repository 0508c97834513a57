#include "sink/sink_files.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include "braid/direct_io.h"
#include "braid/error.h"
#include "proto/control_message.h"
#include "sink/partial_lock.h"

namespace braid {
namespace {

/// Files from this size on have their writeback started block by block.
constexpr std::uint64_t kWritebackMinSize = 4u << 20;
/// Files from this size on have their space reserved when they are opened.
/// Below it, a file fits in a few blocks that delayed allocation places well
/// anyway, and the fallocate was the costliest call of a small file's copy.
constexpr std::uint64_t kReserveMinSize = 64u << 10;

/// How long the verifier waits for a file's data before the ends it holds back go
/// on regardless (WaitForPrefix).
constexpr std::chrono::milliseconds kVerifierStuck{100};

/// How long a writer waits for room among the files in flight before it starts
/// its file regardless (WaitForRoom).
constexpr std::chrono::milliseconds kRoomWait{100};

/// Files up to this size in a new directory are written nameless (O_TMPFILE)
/// and linked in when complete. Sending one again costs less than a partial
/// file and a journal would, and onto ext4 a create and a rename cost about a
/// fifth more than a nameless create and a link (docs/benchmarks.md).
constexpr std::uint64_t kAnonymousMaxSize = 1u << 20;

mode_t CurrentUmask() {
  mode_t m = ::umask(0);
  ::umask(m);
  return m;
}

/// Files from this size on are written around the page cache, whatever -y says.
/// Their data has to reach the disk anyway; through the page cache it is copied
/// once more (by one writer at a time: the inode's lock), written back later
/// and, unless -y none, waited for in the syncs. Onto this machine's ext4, 1 GiB
/// written with O_DIRECT took 0.4-1.0 s, buffered and then synced 2.8 s; a
/// 2 GiB -y none push took 2.3-4.6 s around the page cache against 3.2-10.1 s
/// through it (docs/benchmarks.md, "Fourth round").
constexpr std::uint64_t kDirectMinSize = 4u << 20;
/// Buffered writes go to the page cache in pieces of at most this. On this
/// machine a 1 GiB file written as 1 MiB pwrites took 0.3-1.6 s (and 512 KiB
/// ones 1.2 s), as 256 KiB ones 0.18-0.21 s, every time: the kernel fills a
/// larger write with larger folios, and those came slow (docs/benchmarks.md).
constexpr std::uint32_t kBufferedWritePiece = 256u << 10;

/// Reserves `size` bytes for a new file; returns an errno (0 on success).
/// tmpfs zero-fills every page on fallocate (0.6 s of CPU per 2 GiB here) only
/// for the writes to overwrite it, so there (`fs` is the file's file system)
/// a free-space check stands in.
int ReserveSpace(SinkFileSystem& files, int fd, std::uint64_t size, const struct statfs& fs,
                 bool on_tmpfs) {
  if (on_tmpfs) {
    auto free_bytes =
        static_cast<std::uint64_t>(fs.f_bavail) * static_cast<std::uint64_t>(fs.f_bsize);
    // A resumed partial file already holds some of its space.
    struct stat st {};
    std::uint64_t held =
        files.Fstat(fd, &st) == 0 ? static_cast<std::uint64_t>(st.st_blocks) * 512 : 0;
    return size > free_bytes + held ? ENOSPC : 0;
  }
  return files.Fallocate(fd, static_cast<off_t>(size));
}

/// The entry's modification time, as both atime and mtime for utimensat/futimens.
struct EntryTimes {
  EntryTimes(const PackedList& list, std::uint32_t id)
      : times{{list.mtime_sec(id), static_cast<long>(list.mtime_nsec(id))},
              {list.mtime_sec(id), static_cast<long>(list.mtime_nsec(id))}} {}
  timespec times[2];
};

std::string Parent(const std::string& path) {
  std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

SinkFiles::SinkFiles(PackedList list, TargetPlan plan, std::string host, bool preserve)
    : SinkFiles(std::move(list), std::move(plan), std::move(host), preserve, RealSinkFileSystem()) {
}

SinkFiles::SinkFiles(PackedList list, TargetPlan plan, std::string host, bool preserve,
                     SinkFileSystem& fs)
    : fs_(fs),
      list_(std::move(list)),
      plan_(std::move(plan)),
      host_(std::move(host)),
      preserve_(preserve) {
  for (std::uint32_t id = 0; id < list_.size(); ++id) {
    // The decoder rejects these already; a name that leaves the target must
    // never reach a path here, whoever built the list.
    if (!IsSafeRelativePath(list_.path(id))) Reject("unsafe file name in file list");
  }
  MutexLock lock(mutex_);
  flags_.assign(list_.size(), 0);
  in_new_directory_.assign(list_.size(), false);
}

SinkFile& SinkFiles::InFlight(std::uint32_t id) {
  std::unique_ptr<SinkFile>& f = in_flight_[id];
  if (!f) f = std::make_unique<SinkFile>(id);
  return *f;
}

SinkFile* SinkFiles::FindInFlight(std::uint32_t id) const {
  auto it = in_flight_.find(id);
  return it == in_flight_.end() ? nullptr : it->second.get();
}

bool SinkFiles::complete(std::uint32_t id) const {
  MutexLock lock(mutex_);
  return Has(id, kComplete);
}

bool SinkFiles::committed(std::uint32_t id) const {
  MutexLock lock(mutex_);
  return Has(id, kCommitted);
}

bool SinkFiles::in_place(std::uint32_t id) const {
  MutexLock lock(mutex_);
  return Has(id, kInPlace);
}

bool SinkFiles::anonymous(std::uint32_t id) const {
  MutexLock lock(mutex_);
  return Has(id, kAnonymous);
}

std::optional<std::uint64_t> SinkFiles::end_size(std::uint32_t id) const {
  MutexLock lock(mutex_);
  if (const SinkFile* f = FindInFlight(id)) return f->end_size;
  if (DoneWith(id)) return list_.file_size(id);
  return std::nullopt;
}

std::optional<DigestValue> SinkFiles::source_digest(std::uint32_t id) const {
  MutexLock lock(mutex_);
  const SinkFile* f = FindInFlight(id);
  if (!f || !f->source_digest) return std::nullopt;
  return *f->source_digest;
}

std::uint64_t SinkFiles::covered(std::uint32_t id) const {
  MutexLock lock(mutex_);
  const SinkFile* f = FindInFlight(id);
  return f ? f->ranges.covered() : 0;
}

bool SinkFiles::DoneWith(std::uint32_t id) const {
  // Not a file an earlier run left in place: data for it was never asked for.
  return Has(id, kCommitted) && Has(id, kComplete) && !Has(id, kInPlace) &&
         list_.file_size(id) != kUnknownSize;
}

void SinkFiles::Fail(const std::string& path, int err) const {
  throw BraidError(ErrorCodeForTargetErrno(err), DescribeErrno(host_, path, err));
}

void SinkFiles::FailHeld(std::uint32_t id) const {
  throw BraidError(ErrorCode::kTargetUnwritable,
                   (host_.empty() ? "" : host_ + ":") + final_path(id) +
                       ": another braid is writing it (an earlier attempt still ending, or a "
                       "second copy to the same target)");
}

bool SinkFiles::AwaitPartialFree(std::uint32_t id, std::chrono::steady_clock::time_point deadline) {
  return braid::AwaitPartialFree(fs_, partial_path(id), deadline);
}

bool SinkFiles::IsRegularFile(const std::string& path) const {
  struct stat st {};
  return fs_.Lstat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool SinkFiles::LinkReads(const std::string& path, const std::string& target) const {
  std::string buf(target.size() + 1, '\0');
  ssize_t n = fs_.Readlink(path, buf.data(), buf.size());
  return n >= 0 && static_cast<std::size_t>(n) == target.size() &&
         buf.compare(0, target.size(), target) == 0;
}

void SinkFiles::FailExists(const std::string& path) const {
  throw BraidError(ErrorCode::kTargetUnwritable,
                   DescribeErrno(host_, path, EEXIST) + " (use -f to replace it)");
}

void SinkFiles::Reject(const std::string& why) {
  throw BraidError(ErrorCode::kProtocol, "protocol error: " + why);
}

void SinkFiles::FindNewDirectories() {
  if (plan_.mode == TargetPlan::Mode::kStream) return;
  // Only the last directory is remembered, not every one (a million
  // directories took a map node and a string each): a list names a
  // directory's entries together, and nothing is created before Prepare, so
  // asking again gives the same answer.
  std::string directory;
  bool missing = false;
  for (std::uint32_t id = 0; id < list_.size(); ++id) {
    std::string parent = Parent(final_path(id));
    if (id == 0 || parent != directory) {
      struct stat st {};
      missing = fs_.Lstat(parent, &st) != 0 && errno == ENOENT;
      directory = std::move(parent);
    }
    in_new_directory_[id] = missing;
  }
}

void SinkFiles::FindHardLinkTargets() {
  // The names hard links give, then one pass over the list in order: a
  // target must be a regular file met before the link that names it.
  std::unordered_map<std::string, std::optional<std::uint32_t>> files;
  for (std::uint32_t id = 0; id < list_.size(); ++id) {
    if (list_.kind(id) == FileKind::kHardLink) files.emplace(list_.link_target(id), std::nullopt);
  }
  if (files.empty()) return;
  for (std::uint32_t id = 0; id < list_.size(); ++id) {
    if (list_.kind(id) == FileKind::kRegular) {
      auto it = files.find(std::string(list_.path(id)));
      if (it != files.end() && !it->second) it->second = id;
    } else if (list_.kind(id) == FileKind::kHardLink) {
      const std::optional<std::uint32_t>& file = files.at(std::string(list_.link_target(id)));
      if (!file) Reject("a hard link to a name that is not a file listed before it");
      hard_links_.emplace_back(id, *file);
    }
  }
}

void SinkFiles::Prepare(bool force) {
  if (plan_.mode == TargetPlan::Mode::kStream) return;
  FindHardLinkTargets();
  std::string root = plan_.mode == TargetPlan::Mode::kAsTarget ? Parent(plan_.base) : plan_.base;
  struct stat st {};
  if (fs_.Stat(root, &st) != 0) Fail(root, errno);
  if (!S_ISDIR(st.st_mode)) Fail(root, ENOTDIR);
  // Directories that got a new entry here; only -y dd syncs them, so only it
  // collects them (a string each).
  std::set<std::string> gained;
  const bool sync_dirs = fsync_ == FsyncPolicy::kDataAndDirs;
  for (std::uint32_t id = 0; id < list_.size(); ++id) {
    // Proven in place (PrepareResume looked): a re-run over a million files
    // need not look again.
    if (in_place(id)) continue;
    const std::string path = final_path(id);
    struct stat existing {};
    bool exists = !in_new_directory_[id] && fs_.Lstat(path, &existing) == 0;
    bool made = false;
    switch (list_.kind(id)) {
      case FileKind::kDirectory:
        made = PrepareDirectory(id, path, exists ? &existing : nullptr);
        break;
      case FileKind::kSymlink:
        PrepareLink(id, path, exists ? &existing : nullptr, force);
        made = true;
        break;
      case FileKind::kHardLink:
        // Made at the end (MakeHardLinks), once the file it names is in place.
        if (exists && !force && !S_ISREG(existing.st_mode)) FailExists(path);
        break;
      case FileKind::kRegular:
      case FileKind::kStream:
        if (exists && S_ISDIR(existing.st_mode)) Fail(path, EISDIR);
        // A regular file there is the copy the user asked to bring up to date:
        // replaced (as cp, scp and rsync do) by the rename once this one is
        // complete. Another kind of entry only with -f.
        if (exists && !force && !S_ISREG(existing.st_mode)) FailExists(path);
        break;
    }
    if (made && sync_dirs) gained.insert(Parent(path));
  }
  if (sync_dirs) SyncEach(gained);
}

bool SinkFiles::PrepareDirectory(std::uint32_t id, const std::string& path,
                                 const struct stat* existing) {
  if (existing && S_ISDIR(existing->st_mode)) return false;
  if (existing) Fail(path, EEXIST);
  // Owner-writable until the end, so the files inside can be created.
  if (fs_.Mkdir(path, (list_.mode(id) & 07777) | 0700) != 0) Fail(path, errno);
  if (path == plan_.base) MarkTreeRoot(std::string(list_.path(id)));
  return true;
}

void SinkFiles::PrepareLink(std::uint32_t id, const std::string& path, const struct stat* existing,
                            bool force) {
  const std::string target(list_.link_target(id));
  // A link is replaced by a link (a re-run's own, or one that changed);
  // another kind of entry only with -f.
  if (existing && !force && !S_ISLNK(existing->st_mode)) FailExists(path);
  if (existing && S_ISLNK(existing->st_mode) && LinkReads(path, target)) {
    // Already this link: nothing to replace.
  } else {
    if (existing && fs_.Unlink(path) != 0) Fail(path, errno);
    if (fs_.Symlink(target, path) != 0) Fail(path, errno);
  }
  if (preserve_) {
    if (fs_.IsRoot()) fs_.Lchown(path, list_.uid(id), list_.gid(id));
    fs_.Utimens(path, EntryTimes(list_, id).times);
  }
  MutexLock lock(mutex_);
  Set(id, kCommitted);
}

void SinkFiles::SyncEach(const std::set<std::string>& directories) const {
  for (const std::string& dir : directories) {
    UniqueFd fd(fs_.Open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0));
    if (!fd.valid()) Fail(dir, errno);
    if (fs_.Fsync(fd.get()) != 0) Fail(dir, errno);
  }
}

void SinkFiles::SyncDirectories(const std::vector<std::uint32_t>& ids) {
  if (fsync_ != FsyncPolicy::kDataAndDirs || plan_.mode == TargetPlan::Mode::kStream) return;
  std::set<std::string> parents;
  for (std::uint32_t id : ids) parents.insert(Parent(final_path(id)));
  SyncEach(parents);
}

void SinkFiles::CheckDataFile(std::uint32_t id) const {
  if (id >= list_.size()) Reject("data for a file that is not in the file list");
  if (!list_.carries_data(id)) Reject("data for a directory or link");
}

SinkFile& SinkFiles::Lookup(std::uint32_t id) {
  CheckDataFile(id);
  return InFlight(id);
}

void SinkFiles::CheckBlock(std::uint32_t id, std::uint64_t offset, std::uint32_t length) {
  MutexLock lock(mutex_);
  CheckDataFile(id);
  std::uint64_t end = offset + length;
  const std::uint64_t size = list_.file_size(id);
  if (size != kUnknownSize && end > size) Reject("block past the announced size");
  const SinkFile* f = FindInFlight(id);
  if (f && f->end_size && end > *f->end_size) Reject("block past the file's end");
}

bool SinkFiles::OpenAnonymous(SinkFile& f) {
  const std::uint64_t size = list_.file_size(f.id);
  if (!anonymous_ok_ || direct_writes_ || Has(f.id, kResumed) || !in_new_directory_[f.id] ||
      size == kUnknownSize || size > kAnonymousMaxSize) {
    return false;
  }
  // Nameless, it may carry its final mode from the start.
  f.fd.Reset(fs_.Open(Parent(final_path(f.id)), O_TMPFILE | O_RDWR | O_CLOEXEC, ModeFor(f.id)));
  if (f.fd.valid()) {
    Set(f.id, kAnonymous);
    return true;
  }
  // A file system without O_TMPFILE (or its directory) answers one of these;
  // the named partial works everywhere.
  if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL || errno == ENOENT) {
    anonymous_ok_ = false;
    return false;
  }
  Fail(final_path(f.id), errno);
}

bool SinkFiles::LinkDescriptor(int fd, const std::string& path) {
  if (link_empty_path_ok_) {
    if (fs_.Link(fd, "", path) == 0) return true;
    // Without CAP_DAC_READ_SEARCH the kernel answers ENOENT.
    if (errno != ENOENT) return false;
    link_empty_path_ok_ = false;
  }
  std::string self = "/proc/self/fd/" + std::to_string(fd);
  return fs_.Link(fd, self, path) == 0;
}

bool SinkFiles::LinkAnonymous(SinkFile& f, bool force) {
  const std::string final = final_path(f.id);
  if (LinkDescriptor(f.fd.get(), final)) return true;
  int err = errno;
  if (err == EEXIST && (force || IsRegularFile(final))) {
    // Something took the name since the copy began: replace it as a rename would.
    const std::string partial = PartialPath(final);
    if (!LinkDescriptor(f.fd.get(), partial)) Fail(partial, errno);
    return false;
  }
  if (err == EEXIST) FailExists(final);
  Fail(final, err);
}

int SinkFiles::OpenLocked(SinkFile& f) {
  if (f.fd.valid()) return f.fd.get();
  if (!Has(f.id, kBasis) && OpenAnonymous(f)) {
    ExtendForHoles(f);
    return f.fd.get();
  }
  const std::string partial = partial_path(f.id);
  const bool resumed = Has(f.id, kResumed);
  f.fd.Reset(OpenAndLockPartial(fs_, partial, /*truncate=*/!resumed));
  if (!f.fd.valid() && errno == EWOULDBLOCK) FailHeld(f.id);
  if (!f.fd.valid()) Fail(partial, errno);
  if (Has(f.id, kBasis)) CopyBasis(f);
  ExtendForHoles(f);
  std::uint64_t size = list_.file_size(f.id);
  if (size != kUnknownSize && size >= kReserveMinSize) {
    struct statfs fs {};
    bool on_tmpfs = fs_.Fstatfs(f.fd.get(), &fs) == 0 && fs.f_type == TMPFS_MAGIC;
    // Reserving the space up front turns a disk that is too small into an
    // error now, not after most of the data has crossed the network. Not for
    // a file with holes: posix_fallocate would fill every one of them.
    int err = MayGetHoles(f.id) ? 0 : ReserveSpace(fs_, f.fd.get(), size, fs, on_tmpfs);
    if (err == ENOSPC || err == EDQUOT) {
      // Kept data stays for a re-run with more room; a new file goes.
      if (!resumed) fs_.Unlink(partial);
      f.fd.Reset();
      Fail(partial, err);
    }
    OpenDirect(f, on_tmpfs);
  } else if (direct_writes_ && size != kUnknownSize) {
    OpenDirect(f, false);
  }
  return f.fd.get();
}

void SinkFiles::ExtendForHoles(SinkFile& f) {
  if (!MayGetHoles(f.id)) return;
  if (fs_.Ftruncate(f.fd.get(), static_cast<off_t>(list_.file_size(f.id))) != 0) {
    Fail(Has(f.id, kAnonymous) ? final_path(f.id) : partial_path(f.id), errno);
  }
}

void SinkFiles::CopyBasis(SinkFile& f) {
  // Under the lock, so no block lands before the copy is whole; a copy in
  // the kernel (copy_file_range) of a version already in the page cache.
  constexpr std::uint64_t kCopyPiece = 1u << 30;
  int from = BasisDescriptor(f.id);
  const std::uint64_t size = list_.file_size(f.id);
  // Where the new version may have holes, the old one's are kept: copied
  // over, a hole would arrive as zeros and take its space.
  const bool keep_holes = MayGetHoles(f.id);
  for (std::uint64_t at = 0; at < size;) {
    std::uint64_t until = size;
    if (keep_holes) {
      off_t data = fs_.Lseek(from, static_cast<off_t>(at), SEEK_DATA);
      if (data < 0 && errno == ENXIO) break;  // a hole to the end
      if (data < 0) Fail(final_path(f.id), errno);
      off_t hole = fs_.Lseek(from, data, SEEK_HOLE);
      at = static_cast<std::uint64_t>(data);
      if (hole > data) until = std::min(size, static_cast<std::uint64_t>(hole));
      if (at >= size) break;
    }
    auto want = static_cast<std::size_t>(std::min(until - at, kCopyPiece));
    ssize_t n = fs_.CopyRange(from, f.fd.get(), static_cast<off_t>(at), want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) Fail(partial_path(f.id), errno);
    if (n == 0) break;  // the version there is shorter: the rest arrives as data
    at += static_cast<std::uint64_t>(n);
  }
  // From here on the partial file is read instead: a tree of changed files
  // must not hold a descriptor for each until the end.
  if (BasisTable::Basis* basis = bases_.Find(f.id)) basis->fd.Reset();
}

int SinkFiles::BasisDescriptor(std::uint32_t id) {
  BasisTable::Basis* basis = bases_.Find(id);
  if (basis == nullptr) throw std::logic_error("SinkFiles: a basis asked for a file not compared");
  if (!basis->fd.valid()) {
    const std::string final = final_path(id);
    basis->fd.Reset(fs_.Open(final, O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0));
    if (!basis->fd.valid()) Fail(final, errno);
  }
  return basis->fd.get();
}

void SinkFiles::OpenDirect(SinkFile& f, bool on_tmpfs) {
  // tmpfs is the page cache; -u t asks anyway, to say so when it refuses.
  if (!direct_writes_ && (on_tmpfs || list_.file_size(f.id) < kDirectMinSize)) return;
  // Best effort: a file system without O_DIRECT gets every block buffered.
  f.direct_fd.Reset(fs_.Open(partial_path(f.id), O_WRONLY | O_DIRECT | O_NOFOLLOW | O_CLOEXEC, 0));
  if (!f.direct_fd.valid() && direct_writes_ && !direct_refused_) {
    direct_refused_ = DescribeErrno(host_, final_path(f.id), errno);
  }
}

std::optional<std::string> SinkFiles::DirectRefused() const {
  MutexLock lock(mutex_);
  return direct_refused_;
}

int SinkFiles::WriteAt(SinkFileSystem& fs, int fd, const std::uint8_t* data, std::uint32_t length,
                       std::uint64_t offset, std::uint32_t piece) {
  std::uint32_t done = 0;
  while (done < length) {
    std::uint32_t want = std::min(length - done, piece);
    ssize_t n = fs.Pwrite(fd, data + done, want, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (n == 0) return EIO;
    done += static_cast<std::uint32_t>(n);
  }
  return 0;
}

int SinkFiles::OpenPartial(std::uint32_t id) {
  MutexLock lock(mutex_);
  return OpenLocked(Lookup(id));
}

int SinkFiles::OpenPartialForResume(std::uint32_t id) {
  MutexLock lock(mutex_);
  SinkFile& f = Lookup(id);
  Set(id, kResumed);
  return OpenLocked(f);
}

void SinkFiles::StartWriteback(std::uint32_t id, int fd, std::uint64_t offset,
                               std::uint32_t length) const {
  // -y none leaves the page cache to the kernel, as the peers do. Otherwise
  // the block goes to the disk now, while later blocks still arrive, instead
  // of all at once in the checkpoint's or the final fdatasync: onto ext4 that
  // halved the syncs' time and cut the writes' (docs/benchmarks.md, "Onto a real disk"). Only
  // starts the writeback; an error shows in the fdatasync that follows.
  // Small files are left to their batch's syncfs, which writes them out
  // together: one IO each as they arrive made a tree of 4 KiB files slower.
  if (fsync_ == FsyncPolicy::kNone) return;
  const std::uint64_t size = list_.file_size(id);
  if (size != kUnknownSize && size < kWritebackMinSize) return;
  fs_.StartWriteback(fd, static_cast<off_t>(offset), length);
}

int SinkFiles::WriteThrough(std::uint32_t id, int fd, int direct_fd, const std::uint8_t* data,
                            std::uint32_t length, std::uint64_t offset) {
  // Around the page cache, writers of one file overlap: the kernel lets them,
  // and a disk wants several writes in flight. Onto this machine's ext4, 2 GiB
  // of 1 MiB O_DIRECT writes into a reserved file took 10.4 s one at a time,
  // 6.5 s with 2 writers and 3.3 s with 4 (fio, docs/benchmarks.md).
  int err = direct_fd >= 0 ? WriteAt(fs_, direct_fd, data, length, offset, length) : EINVAL;
  if (err != EINVAL) return err;
  // EINVAL from O_DIRECT: this file system wants more alignment; buffered
  // still works, one writer of a file at a time (write_mutexes_ says why).
  MutexLock write_lock(WriteMutex(id));
  return WriteAt(fs_, fd, data, length, offset, kBufferedWritePiece);
}

void SinkFiles::WaitForRoom(MutexLock& lock, std::uint32_t id) {
  // Only while a complete file waits for the committer, which will free its room:
  // files still arriving may wait for frames behind this one (an end queued behind
  // the block that waits here), so a wait with none complete would only stall. And
  // never the file the verifier is at, and never long (a lost stream's frames come
  // again out of order).
  std::optional<std::chrono::steady_clock::time_point> until;  // read only if it waits
  while (most_in_flight_ > 0 && in_flight_.size() >= most_in_flight_ && complete_in_flight_ > 0 &&
         !aborted_ && FindInFlight(id) == nullptr && !(bound_by_verifier_ && id <= verifying_)) {
    if (!until) until = std::chrono::steady_clock::now() + kRoomWait;
    if (room_cv_.wait_until(lock.native(), *until) == std::cv_status::timeout) return;
  }
}

bool SinkFiles::WriteBlock(std::uint32_t id, std::uint64_t offset, const std::uint8_t* data,
                           std::uint32_t length) {
  int fd;
  int direct_fd = -1;
  {
    MutexLock lock(mutex_);
    WaitForRoom(lock, id);
    if (id < list_.size() && DoneWith(id)) return false;  // all there, and its state gone
    SinkFile& f = Lookup(id);
    if (f.ranges.Contains(offset, offset + length)) return false;
    if (Has(id, kComplete)) Reject("data after the file was complete");
    fd = OpenLocked(f);
    if (f.direct_fd.valid() && DirectAligned(data, offset, length)) direct_fd = f.direct_fd.get();
    ++f.writes_in_flight;
  }
  int err = WriteThrough(id, fd, direct_fd, data, length, offset);
  MutexLock lock(mutex_);
  // Still there: Commit erases a file's state only once no write is under way.
  SinkFile& f = *FindInFlight(id);
  if (--f.writes_in_flight == 0) cv_.notify_all();
  if (err != 0) Fail(Has(id, kAnonymous) ? final_path(id) : partial_path(id), err);
  lock.Unlock();
  if (direct_fd < 0) StartWriteback(id, fd, offset, length);
  lock.Lock();
  // A block that came twice at once may find the file committed by the other.
  SinkFile* now = FindInFlight(id);
  if (!now) return true;
  bytes_ += now->ranges.Add(offset, offset + length);
  bool now_complete = MarkIfComplete(*now);
  lock.Unlock();
  Announce(id, now_complete);
  return true;
}

bool SinkFiles::RecordHole(std::uint32_t id, std::uint64_t offset, std::uint32_t length) {
  CheckBlock(id, offset, length);
  MutexLock lock(mutex_);
  if (list_.kind(id) != FileKind::kRegular) Reject("a hole in an entry that is not a regular file");
  if (DoneWith(id)) return false;  // asked for again after a lost stream, and all there
  SinkFile& f = Lookup(id);
  if (f.ranges.Contains(offset, offset + length)) return false;
  if (Has(id, kComplete)) Reject("data after the file was complete");
  int fd = OpenLocked(f);
  // A new file with room for holes reads as zeros there already; kept data,
  // an older version, or space reserved up front may hold other bytes.
  if (Has(id, kResumed) || Has(id, kBasis) || !MayGetHoles(id)) {
    int err = fs_.PunchHole(fd, static_cast<off_t>(offset), static_cast<off_t>(length));
    if (err != 0) Fail(Has(id, kAnonymous) ? final_path(id) : partial_path(id), err);
  }
  bytes_ += f.ranges.Add(offset, offset + length);
  bool now_complete = MarkIfComplete(f);
  lock.Unlock();
  Announce(id, now_complete);
  return true;
}

void SinkFiles::RecordStreamed(std::uint32_t id, std::uint64_t offset, std::uint32_t length) {
  MutexLock lock(mutex_);
  SinkFile& f = Lookup(id);
  bytes_ += f.ranges.Add(offset, offset + length);
  bool now_complete = MarkIfComplete(f);
  lock.Unlock();
  Announce(id, now_complete);
}

void SinkFiles::EndFile(std::uint32_t id, std::uint64_t size, std::optional<DigestValue> digest) {
  MutexLock lock(mutex_);
  while (bound_by_verifier_ && !aborted_ && !verifier_waits_ &&
         std::uint64_t{id} > std::uint64_t{verifying_} + verify_ahead_) {
    verifier_cv_.wait(lock.native());
  }
  const std::uint64_t announced = id < list_.size() ? list_.file_size(id) : 0;
  if (id < list_.size() && DoneWith(id)) {
    // Its end asked for again after a lost stream; the digest was compared at its commit.
    if (size == announced) return;
    Reject("a file ended twice");
  }
  SinkFile& f = Lookup(id);
  if (f.end_size) {
    // A file end asked for again after a lost stream may arrive twice.
    const bool same_digest =
        f.source_digest ? digest && *digest == *f.source_digest : !digest.has_value();
    if (*f.end_size == size && same_digest) return;
    Reject("a file ended twice");
  }
  if (announced != kUnknownSize && size != announced) {
    Reject("file end disagrees with the announced size");
  }
  if (f.ranges.MaxEnd() > size) Reject("file end before data already received");
  f.end_size = size;
  if (digest) f.source_digest = std::make_unique<const DigestValue>(*digest);
  bool now_complete = MarkIfComplete(f);
  lock.Unlock();
  Announce(id, now_complete);
}

void SinkFiles::AwaitWrites(SinkFile& f, MutexLock& lock) {
  // A write under way at commit is a block that came twice (a resend); on
  // failure, one that was started. Either ends with its pwrite.
  while (f.writes_in_flight > 0) cv_.wait(lock.native());
}

bool SinkFiles::MarkIfComplete(SinkFile& f) {
  bool now_complete = !Has(f.id, kComplete) && f.end_size && f.ranges.covered() == *f.end_size;
  if (now_complete) {
    Set(f.id, kComplete);
    ++complete_in_flight_;
  }
  return now_complete;
}

void SinkFiles::Announce(std::uint32_t id, bool now_complete) {
  cv_.notify_all();
  if (now_complete && on_complete_) on_complete_(id);
}

std::optional<std::uint64_t> SinkFiles::WaitForPrefix(std::uint32_t id, std::uint64_t have) {
  MutexLock lock(mutex_);
  if (verifying_ != id) {
    verifying_ = id;
    verifier_cv_.notify_all();
  }
  // The ends held back for it must not wait on a verifier that waits on them: data a
  // lost stream's frames carried comes again after them. So a wait that lasts lets
  // them through; a short one does not, or ends ran ever further past the verifier
  // (their files each holding a descriptor) whenever it waited for the next file's
  // first block, and a -e copy of 100,000 small files ran out of 1024 descriptors.
  std::optional<std::chrono::steady_clock::time_point> stuck;  // read only if it waits
  while (!aborted_ && !Has(id, kComplete) && PrefixLocked(id) <= have) {
    if (!stuck) {
      stuck = std::chrono::steady_clock::now() + kVerifierStuck;
    } else if (!verifier_waits_ && std::chrono::steady_clock::now() >= *stuck) {
      verifier_waits_ = true;
      verifier_cv_.notify_all();
    }
    if (verifier_waits_) {
      cv_.wait(lock.native());
    } else {
      cv_.wait_until(lock.native(), *stuck);
    }
  }
  verifier_waits_ = false;
  if (aborted_) return std::nullopt;
  return PrefixLocked(id);
}

std::optional<ForwardState> SinkFiles::WaitForForward(std::uint32_t id, std::uint64_t have) {
  CheckDataFile(id);
  MutexLock lock(mutex_);
  while (!aborted_) {
    if (Has(id, kCommitted) || Has(id, kInPlace)) {
      return ForwardState{list_.file_size(id), true, true, std::nullopt};
    }
    const SinkFile* f = FindInFlight(id);
    if (f != nullptr && !Has(id, kBasis) && !Has(id, kAnonymous)) {
      ForwardState now{f->ranges.ContiguousPrefix(), false, f->end_size.has_value(), std::nullopt};
      if (f->source_digest) now.digest = *f->source_digest;
      if (now.prefix > have || (now.ended && now.prefix >= *f->end_size)) return now;
    }
    cv_.wait(lock.native());
  }
  return std::nullopt;
}

std::uint64_t SinkFiles::PrefixLocked(std::uint32_t id) const {
  if (const SinkFile* f = FindInFlight(id)) return f->ranges.ContiguousPrefix();
  return DoneWith(id) ? list_.file_size(id) : 0;
}

void SinkFiles::Commit(std::uint32_t id, bool force) {
  if (plan_.mode == TargetPlan::Mode::kStream) {
    MutexLock lock(mutex_);
    Set(id, kCommitted);
    return;
  }
  SinkFile* f;
  {
    MutexLock lock(mutex_);
    if (UnchangedLocked(id)) {
      CommitUnchanged(id);
      return;
    }
    OpenLocked(Lookup(id));  // a zero-byte file was never opened by a block
    // Only this thread erases a file's state, so it stays while the lock is let go.
    f = FindInFlight(id);
  }
  const int fd = f->fd.get();
  const std::string path = WorkingPath(id);
  const bool is_anonymous = anonymous(id);
  // Owner first: chown clears set-id bits, so the mode goes on after it.
  if (preserve_ && fs_.IsRoot() && fs_.Fchown(fd, list_.uid(id), list_.gid(id)) != 0) {
    Fail(path, errno);
  }
  // An anonymous file was created with its mode, and chown did not run to clear bits.
  if ((preserve_ || !is_anonymous) && fs_.Fchmod(fd, ModeFor(id)) != 0) Fail(path, errno);
  if (preserve_) {
    if (fs_.Futimens(fd, EntryTimes(list_, id).times) != 0) Fail(path, errno);
  }
  PutInPlace(*f, force);
  MutexLock lock(mutex_);
  bases_.Erase(id);
  Set(id, kCommitted);
  // A stream's end bounds what is sent again; every other file's size says it.
  if (list_.file_size(id) != kUnknownSize) EraseInFlight(id);
  cv_.notify_all();  // a forwarding sink's feed may wait for it
}

void SinkFiles::PutInPlace(SinkFile& f, bool force) {
  bool linked = anonymous(f.id) && LinkAnonymous(f, force);
  {
    MutexLock lock(mutex_);
    AwaitWrites(f, lock);
    f.direct_fd.Reset();
    f.fd.Reset();
  }
  if (linked) return;
  const std::string final = final_path(f.id);
  const std::string partial = PartialPath(final);
  int rc = fs_.Rename(partial, final, /*no_replace=*/!force);
  // A regular file that took the name meanwhile is replaced as one there
  // at the start would be (Prepare); anything else needs -f.
  if (rc != 0 && errno == EEXIST && IsRegularFile(final)) {
    rc = fs_.Rename(partial, final, /*no_replace=*/false);
  }
  if (rc != 0 && errno == EEXIST) FailExists(final);
  if (rc != 0) Fail(final, errno);
}

void SinkFiles::CommitUnchanged(std::uint32_t id) {
  if (preserve_) KeepAttributes(id, BasisDescriptor(id));
  bases_.Erase(id);
  Set(id, kCommitted);
  if (list_.file_size(id) != kUnknownSize) EraseInFlight(id);
  cv_.notify_all();
}

void SinkFiles::EraseInFlight(std::uint32_t id) {
  if (in_flight_.erase(id) == 0) return;
  if (complete_in_flight_ > 0) --complete_in_flight_;
  room_cv_.notify_one();
}

void SinkFiles::KeepAttributes(std::uint32_t id, int fd) {
  // The path only for a message: this runs for every file of a -p re-run.
  auto fail = [&] {
    const int err = errno;
    Fail(final_path(id), err);
  };
  struct stat st {};
  if (fs_.Fstat(fd, &st) != 0) fail();
  // Only what differs: each change updates the inode's ctime and dirties it
  // (a journal write on ext4), which a no-op -p re-run of a tree should not
  // pay for every file.
  const bool owner = fs_.IsRoot() && (st.st_uid != list_.uid(id) || st.st_gid != list_.gid(id));
  if (owner && fs_.Fchown(fd, list_.uid(id), list_.gid(id)) != 0) fail();
  // chown clears set-id bits, so the mode goes on again after one.
  if ((owner || (st.st_mode & 07777) != ModeFor(id)) && fs_.Fchmod(fd, ModeFor(id)) != 0) fail();
  const EntryTimes want(list_, id);
  const bool times =
      st.st_mtim.tv_sec != want.times[1].tv_sec || st.st_mtim.tv_nsec != want.times[1].tv_nsec;
  if (times && fs_.Futimens(fd, want.times) != 0) fail();
}

mode_t SinkFiles::ModeFor(std::uint32_t id) const {
  static const mode_t kUmask = CurrentUmask();
  const mode_t mode = list_.mode(id);
  return preserve_ ? (mode & 07777) : (mode & 0777 & ~kUmask);
}

void SinkFiles::MarkTreeRoot(const std::string& name) {
  const std::string mark = TreeRootMarkPath(plan_.base);
  // A mark left by another copy that was made into a target since removed.
  if (fs_.Symlink(name, mark) != 0 && errno == EEXIST && fs_.Unlink(mark) == 0) {
    fs_.Symlink(name, mark);
  }
  // Without the mark a re-run copies the tree into this directory instead of
  // resuming it: worse, but not wrong, so a failure here is not the copy's.
}

void SinkFiles::MakeHardLinks() {
  std::vector<std::uint32_t> made;
  for (const auto& [link, file] : hard_links_) {
    const std::string path = final_path(link);
    const std::string target = final_path(file);
    struct stat want {};
    if (fs_.Lstat(target, &want) != 0) Fail(target, errno);
    if (!S_ISREG(want.st_mode)) Fail(target, EINVAL);
    struct stat have {};
    if (fs_.Lstat(path, &have) == 0) {
      if (have.st_dev == want.st_dev && have.st_ino == want.st_ino) {
        MutexLock lock(mutex_);
        Set(link, kCommitted);
        continue;  // a re-run's own link
      }
      // Linked under the partial name and renamed over, so the name never
      // goes missing; a directory there is left to rename's EISDIR.
      const std::string partial = partial_path(link);
      fs_.Unlink(partial);
      if (fs_.Link(-1, target, partial) != 0) Fail(path, errno);
      if (fs_.Rename(partial, path, false) != 0) {
        const int err = errno;
        fs_.Unlink(partial);
        Fail(path, err);
      }
    } else if (fs_.Link(-1, target, path) != 0) {
      Fail(path, errno);
    }
    made.push_back(link);
    MutexLock lock(mutex_);
    Set(link, kCommitted);
  }
  SyncDirectories(made);
}

void SinkFiles::FinishDirectories() {
  // The tree is complete: the same command again copies it into the target, as cp does.
  if (plan_.mode == TargetPlan::Mode::kAsTarget && list_.size() > 0 &&
      list_.kind(0) == FileKind::kDirectory) {
    fs_.Unlink(TreeRootMarkPath(plan_.base));
  }
  // Deepest first, so setting a parent's time is not undone by its children.
  for (std::uint32_t id = static_cast<std::uint32_t>(list_.size()); id-- > 0;) {
    if (list_.kind(id) != FileKind::kDirectory) continue;
    const std::string path = final_path(id);
    if (preserve_ && fs_.IsRoot()) fs_.Chown(path, list_.uid(id), list_.gid(id));
    fs_.Chmod(path, ModeFor(id));
    if (preserve_) fs_.Utimens(path, EntryTimes(list_, id).times);
  }
}

void SinkFiles::MakeDurable(const std::vector<std::uint32_t>& all) {
  if (fsync_ == FsyncPolicy::kNone) return;
  if (plan_.mode == TargetPlan::Mode::kStream || all.empty()) return;
  std::vector<std::uint32_t> ids;  // an unchanged file had nothing written
  for (std::uint32_t id : all) {
    if (!Unchanged(id)) ids.push_back(id);
  }
  if (ids.empty()) return;
  if (ids.size() == 1) {
    int fd = OpenPartial(ids.front());
    if (fs_.Fdatasync(fd) != 0) Fail(WorkingPath(ids.front()), errno);
    return;
  }
  // One syncfs per file system in the batch (a tree may cross a mount point).
  std::set<dev_t> synced;
  for (std::uint32_t id : ids) {
    int fd = OpenPartial(id);
    struct stat st {};
    if (fs_.Fstat(fd, &st) != 0) Fail(WorkingPath(id), errno);
    if (!synced.insert(st.st_dev).second) continue;
    if (fs_.Syncfs(fd) != 0) Fail(WorkingPath(id), errno);
  }
}

void SinkFiles::RemovePartials(const std::function<bool(std::uint32_t)>& keep) {
  if (plan_.mode == TargetPlan::Mode::kStream) return;
  MutexLock lock(mutex_);
  for (std::uint32_t id = 0; id < list_.size(); ++id) {
    if (!list_.carries_data(id)) continue;
    SinkFile* f = FindInFlight(id);
    if (f) AwaitWrites(*f, lock);
    // The wait let the lock go: look again.
    if (Has(id, kCommitted)) continue;
    f = FindInFlight(id);
    if (Has(id, kAnonymous)) {  // nothing on disk has its name: closing discards it
      if (f) f->fd.Reset();
      continue;
    }
    if (keep && keep(id)) {
      if (f) f->direct_fd.Reset();
      if (f) f->fd.Reset();
      continue;
    }
    const bool open = f && f->fd.valid();
    if (open || fs_.Access(partial_path(id)) == 0) {
      // The name goes while the lock is still held (partial_lock.h): a sink
      // waiting for it must not find it, lock it, and then lose it to us.
      fs_.Unlink(partial_path(id));
      if (f) f->direct_fd.Reset();
      if (f) f->fd.Reset();
    }
  }
}

void SinkFiles::MarkInPlace(std::uint32_t id) {
  MutexLock lock(mutex_);
  CheckDataFile(id);
  Set(id, kInPlace);
  Set(id, kComplete);
  Set(id, kCommitted);
}

void SinkFiles::SetKept(std::uint32_t id, RangeSet kept) {
  MutexLock lock(mutex_);
  SinkFile& f = Lookup(id);
  f.ranges = std::move(kept);
  Set(id, kResumed);
}

void SinkFiles::MarkCompared(std::uint32_t id, std::uint64_t size) {
  MutexLock lock(mutex_);
  CheckDataFile(id);
  Set(id, kBasis);
  // Room for every file at the first: grown by doubling, the table held its
  // old and new records at once. Room never written is never resident.
  bases_.Reserve(list_.size());
  bases_.Add(id, size);
}

void SinkFiles::RecordSame(std::uint32_t id, std::uint64_t offset, std::uint32_t length) {
  CheckBlock(id, offset, length);
  MutexLock lock(mutex_);
  CheckDataFile(id);
  const BasisTable::Basis* basis = bases_.Find(id);
  if (!Has(id, kBasis) || basis == nullptr) {
    Reject("a same-block frame for a file not compared");
  }
  if (offset + length > basis->size) Reject("a same-block frame past the target's version");
  SinkFile& f = InFlight(id);
  if (f.ranges.Contains(offset, offset + length)) return;
  if (Has(id, kComplete)) Reject("data after the file was complete");
  bytes_ += f.ranges.Add(offset, offset + length);
  bool now_complete = MarkIfComplete(f);
  lock.Unlock();
  Announce(id, now_complete);
}

bool SinkFiles::UnchangedLocked(std::uint32_t id) const {
  const SinkFile* f = FindInFlight(id);
  if (!Has(id, kBasis) || (f && f->fd.valid())) return false;
  const BasisTable::Basis* basis = bases_.Find(id);
  // A version of another size needs a partial file even if every block matched.
  return basis != nullptr && basis->size == list_.file_size(id);
}

bool SinkFiles::Unchanged(std::uint32_t id) const {
  MutexLock lock(mutex_);
  if (id >= list_.size()) throw std::out_of_range("SinkFiles::Unchanged: no such file");
  return UnchangedLocked(id);
}

int SinkFiles::ReadDescriptor(std::uint32_t id) {
  MutexLock lock(mutex_);
  SinkFile& f = Lookup(id);
  if (Has(id, kBasis) && !f.fd.valid()) return BasisDescriptor(id);
  return OpenLocked(f);
}

void SinkFiles::SyncPartial(std::uint32_t id) {
  int fd;
  {
    MutexLock lock(mutex_);
    CheckDataFile(id);
    const SinkFile* f = FindInFlight(id);
    if (!f || !f->fd.valid()) return;
    fd = f->fd.get();
  }
  if (fs_.Fdatasync(fd) != 0) Fail(WorkingPath(id), errno);
}

std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>> SinkFiles::Missing(
    std::size_t limit, std::vector<std::uint32_t>& unrepairable) const {
  MutexLock lock(mutex_);
  std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>> out;
  static const RangeSet kNothing;
  for (std::uint32_t id = 0; id < list_.size(); ++id) {
    if (!list_.carries_data(id) || Has(id, kComplete)) continue;
    const std::uint64_t size = list_.file_size(id);
    if (size == kUnknownSize) {
      unrepairable.push_back(id);
      continue;
    }
    // A file with no state in flight has had nothing: all of it is missing.
    const SinkFile* f = FindInFlight(id);
    for (const auto& [begin, end] : (f ? f->ranges : kNothing).Gaps(size)) {
      if (out.size() == limit) return out;
      out.emplace_back(id, begin, end - begin);
    }
    if (!f || !f->end_size) {
      if (out.size() == limit) return out;
      out.emplace_back(id, size, 0);
    }
  }
  return out;
}

void SinkFiles::Abort() {
  {
    MutexLock lock(mutex_);
    aborted_ = true;
  }
  cv_.notify_all();
  verifier_cv_.notify_all();
  room_cv_.notify_all();
}

std::uint64_t SinkFiles::bytes_received() const {
  MutexLock lock(mutex_);
  return bytes_;
}

std::size_t SinkFiles::data_file_count() const {
  MutexLock lock(mutex_);
  std::size_t n = 0;
  for (std::uint32_t id = 0; id < list_.size(); ++id) {
    if (list_.carries_data(id) && !Has(id, kInPlace)) ++n;
  }
  return n;
}

std::string SinkFiles::final_path(std::uint32_t id) const {
  return FinalPath(plan_, list_.path(id));
}

std::string SinkFiles::partial_path(std::uint32_t id) const { return PartialPath(final_path(id)); }

std::string SinkFiles::WorkingPath(std::uint32_t id) const {
  return anonymous(id) ? final_path(id) : partial_path(id);
}

}  // namespace braid
