#pragma once
/// The sink's view of every file in the transfer: where it goes, which bytes
/// have arrived, whether its end and the source's digest are known. Checks each block against
/// the announced file list before a byte is written, writes regular files at
/// their offsets into a partial file, and says when a file is complete. Every
/// file-system call goes through a SinkFileSystem: the real one, or the fake
/// tests/unit/sink_files_test.cc checks all of the above against.

#include <sys/stat.h>
#include <sys/types.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "braid/file_entry.h"
#include "braid/fsync_policy.h"
#include "braid/mutex.h"
#include "braid/unique_fd.h"
#include "security/crypto/file_digest.h"
#include "session/packed_list.h"
#include "session/range_set.h"
#include "session/target_plan.h"
#include "sink/basis_table.h"
#include "sink/sink_file_system.h"

namespace braid {

/// What the sink keeps of a file while it is in flight: from its first block,
/// end or kept data until it is committed. Most of a tree's files are in
/// flight for a moment, so this is not kept per entry (it was 104 bytes an
/// entry); what a file needs for the whole copy is a byte of flags
/// (SinkFiles::flags_). All of it is SinkFiles::mutex_'s, except the data
/// written through `fd`, which `write_mutexes_` order; a SinkFile is erased
/// only by Commit, on the committing thread, once no write is under way (a
/// file of unknown size keeps it: its end bounds the blocks sent again).
struct SinkFile {
  explicit SinkFile(std::uint32_t file_id) : id(file_id) {}
  const std::uint32_t id;
  UniqueFd fd;
  /// The same partial file opened O_DIRECT, for durable copies of large files
  /// (OpenLocked says when); invalid where the file system refuses it.
  UniqueFd direct_fd;
  RangeSet ranges;
  /// Writes under way through `fd` or `direct_fd`: their descriptors are not
  /// closed until these end (WriteBlock counts, Commit and RemovePartials wait).
  std::uint32_t writes_in_flight = 0;
  std::optional<std::uint64_t> end_size;
  /// From the file end, with -E; on the heap, as most files never have one
  /// (or have it only from their end until they are committed).
  std::unique_ptr<const DigestValue> source_digest;
};

/// What a forwarding sink's feed tells the source that follows it of one file.
struct ForwardState {
  std::uint64_t prefix = 0;           ///< bytes from its start written to its partial file
  bool committed = false;             ///< verified and under its final name
  bool ended = false;                 ///< its end arrived
  std::optional<DigestValue> digest;  ///< the source's, from its end (-E), until committed
};

class SinkFiles {
 public:
  /// On the process's file system. Throws BraidError(kProtocol) for an entry
  /// whose path is not a safe relative one (absolute, "..", empty components).
  SinkFiles(PackedList list, TargetPlan plan, std::string host, bool preserve);
  /// On `fs` (a fake in tests), which must outlive this.
  SinkFiles(PackedList list, TargetPlan plan, std::string host, bool preserve, SinkFileSystem& fs);
  SinkFiles(const std::vector<FileEntry>& entries, TargetPlan plan, std::string host, bool preserve,
            SinkFileSystem& fs)
      : SinkFiles(PackedList(entries), std::move(plan), std::move(host), preserve, fs) {}

  /// -y: what MakeDurable and SyncDirectories wait for (kData unless set).
  void SetFsync(FsyncPolicy policy) { fsync_ = policy; }
  FsyncPolicy fsync() const { return fsync_; }
  /// -u t: every file of a known size is written O_DIRECT where its file
  /// system lets it (the tail, and any block not aligned, through the cache).
  void SetDirectWrites(bool on) { direct_writes_ = on; }
  /// --sparse: any regular file may get holes (hole frames for its runs of
  /// zeros), so none has its space reserved up front.
  void SetSparseZeros(bool on) { sparse_zeros_ = on; }
  /// With -u t, the first file whose file system refused O_DIRECT, and why
  /// ("host:path: why"); nullopt when none did.
  std::optional<std::string> DirectRefused() const;

  /// Marks the entries whose directory does not exist yet (one lstat per
  /// directory). Call before PrepareResume and Prepare, which then skip them.
  void FindNewDirectories();
  /// Creates directories and links, and refuses to replace existing files
  /// unless `force`. With -y dd, syncs the directories that gained them.
  /// Throws BraidError naming host and path.
  void Prepare(bool force);

  /// Throws BraidError(kProtocol) unless [offset, offset+length) of file `id`
  /// is inside what the file list and the file's end announced.
  void CheckBlock(std::uint32_t id, std::uint64_t offset, std::uint32_t length);
  /// Writes at the offset of a regular target; false if the bytes were there already.
  bool WriteBlock(std::uint32_t id, std::uint64_t offset, const std::uint8_t* data,
                  std::uint32_t length);
  /// A hole frame: [offset, offset+length) of a regular file reads as zeros
  /// and takes no space (punched where the file may hold other bytes there).
  /// False if it was there already. Throws BraidError(kProtocol) for an
  /// entry that is not a regular file.
  bool RecordHole(std::uint32_t id, std::uint64_t offset, std::uint32_t length);
  /// Records bytes a stream target wrote in order.
  void RecordStreamed(std::uint32_t id, std::uint64_t offset, std::uint32_t length);
  /// Records the file's end; throws BraidError(kProtocol) if it contradicts
  /// what was announced or already received.
  void EndFile(std::uint32_t id, std::uint64_t size, std::optional<DigestValue> digest);

  /// Blocks until file `id` has a contiguous prefix beyond `have` or is
  /// complete; returns the prefix. nullopt after Abort(). The verifier's
  /// call: it also says which file the verifier is at.
  std::optional<std::uint64_t> WaitForPrefix(std::uint32_t id, std::uint64_t have);
  /// A forwarding sink's feed: blocks until file `id` has more than `have`
  /// bytes from its start in its partial file, or all of them and its end, or
  /// is committed. A file whose partial file does not hold all it has (one
  /// compared with an older version) or that has none (nameless) says nothing
  /// until it is committed. nullopt after Abort().
  std::optional<ForwardState> WaitForForward(std::uint32_t id, std::uint64_t have);
  /// A forwarding sink names every partial file (none is written nameless),
  /// so the source that follows it can read each one as it arrives.
  void NameEveryFile() {
    MutexLock lock(mutex_);
    anonymous_ok_ = false;
  }
  /// -E to files: a file's end waits while it is more than `ahead` files past
  /// the verifier's, unless the verifier has waited 100 ms for data that
  /// has not arrived, so the states (and descriptors) of files ended but not
  /// yet hashed stay bounded (a tree of 100,000 empty files held every one of
  /// them). Set before the receivers start.
  void BoundByVerifier(std::uint64_t ahead) {
    bound_by_verifier_ = true;
    verify_ahead_ = ahead;
  }
  /// A file's first block waits (100 ms at most) while `most` files are in flight,
  /// each with its state and perhaps a descriptor, until one is committed: the
  /// bound on files waiting for the committer holds back only the receiver that
  /// completed one, and the others went on opening files (a million files of
  /// 100 bytes reached 20,000 descriptors). 0: no bound. Set before the receivers start.
  void BoundInFlight(std::size_t most) { most_in_flight_ = most; }

  /// Syncs the data of these complete files to disk: one fdatasync for one
  /// file, one syncfs for a batch. Nothing with -y none.
  void MakeDurable(const std::vector<std::uint32_t>& ids);
  /// With -y dd, after Commit: fsyncs each directory these files were renamed
  /// into, once, so their names survive a crash. Nothing otherwise.
  void SyncDirectories(const std::vector<std::uint32_t>& ids);
  /// Applies owner, mode and times and renames the partial file into place.
  /// Call MakeDurable first, so a crash can never leave a short file under
  /// the final name.
  void Commit(std::uint32_t id, bool force);
  /// -H: makes each hard link the list holds, once every file is in place: a
  /// new name for the file it names, replacing a regular file there (or
  /// another kind of entry with -f, which Prepare checked). With -y dd, syncs
  /// the directories that gained one.
  void MakeHardLinks();
  /// Gives directories their final mode (and owner and times with -p) once
  /// everything inside them is written, and removes the tree-root mark.
  void FinishDirectories();
  /// Removes the partial files of everything not committed, except those
  /// `keep` says to keep (they have a journal, so a re-run resumes them).
  void RemovePartials(const std::function<bool(std::uint32_t)>& keep = {});
  /// An earlier run left this file complete under its final name: skip it.
  void MarkInPlace(std::uint32_t id);
  /// The partial file already holds `kept` (verified): write around it.
  void SetKept(std::uint32_t id, RangeSet kept);
  /// The file under the final name, of `size` bytes, is compared block by
  /// block (SinkFile::basis).
  void MarkCompared(std::uint32_t id, std::uint64_t size);
  /// A "same" frame: the target's block [offset, offset+length) is the
  /// source's. Throws BraidError(kProtocol) for a file not compared or a
  /// block outside it.
  void RecordSame(std::uint32_t id, std::uint64_t offset, std::uint32_t length);
  /// A compared file no data arrived for: the target is left as it is.
  bool Unchanged(std::uint32_t id) const;
  /// Where the verifier reads file `id`: its partial file, or for a compared
  /// file still unchanged the file under the final name.
  int ReadDescriptor(std::uint32_t id);
  /// fdatasync of the partial file, if it is open.
  void SyncPartial(std::uint32_t id);
  /// What is still missing of each file not complete, for the source to send
  /// again: gaps, and the file's end when it has not arrived (length 0).
  /// At most `limit` ranges. Files of unknown size cannot be re-read: their
  /// ids go to `unrepairable`.
  std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>> Missing(
      std::size_t limit, std::vector<std::uint32_t>& unrepairable) const;
  void Abort();

  /// Calls `ready(id)` each time a file becomes complete (from the writing thread).
  void OnComplete(std::function<void(std::uint32_t)> ready) { on_complete_ = std::move(ready); }

  /// The file list as it was received; never changes.
  const PackedList& list() const { return list_; }
  /// Where the file goes, and the partial file its data is written to first.
  std::string final_path(std::uint32_t id) const;
  std::string partial_path(std::uint32_t id) const;
  /// Every byte and the end are in.
  bool complete(std::uint32_t id) const;
  /// Renamed into place (or made in Prepare, for a link).
  bool committed(std::uint32_t id) const;
  /// An earlier run completed it: nothing to copy.
  bool in_place(std::uint32_t id) const;
  /// Its directory did not exist when the copy began (FindNewDirectories);
  /// read without a lock, as it is set before any other thread starts.
  bool in_new_directory(std::uint32_t id) const { return in_new_directory_[id]; }
  /// Opened nameless (O_TMPFILE): nothing to journal or resume.
  bool anonymous(std::uint32_t id) const;
  /// The file's end, once it arrived; the size of a file committed.
  std::optional<std::uint64_t> end_size(std::uint32_t id) const;
  /// The source's digest from the file end (-E), until the file is committed.
  std::optional<DigestValue> source_digest(std::uint32_t id) const;
  /// Unique bytes of the file received or kept so far (not after its commit).
  std::uint64_t covered(std::uint32_t id) const;
  std::uint64_t bytes_received() const;
  /// Files that carry data (regular or stream), the ones that get committed.
  std::size_t data_file_count() const;
  const TargetPlan& plan() const { return plan_; }
  /// Opens the partial file if it is not open yet; returns its descriptor.
  int OpenPartial(std::uint32_t id);
  /// Opens an earlier run's partial file without truncating it.
  int OpenPartialForResume(std::uint32_t id);
  /// Waits until no other sink holds the partial file of `id` (true), or
  /// until `deadline` (false). Call before the receivers start.
  bool AwaitPartialFree(std::uint32_t id, std::chrono::steady_clock::time_point deadline);
  /// Throws the error for a partial file another sink holds (partial_lock.h).
  [[noreturn]] void FailHeld(std::uint32_t id) const;

 private:
  /// SinkFiles::flags_'s bits: what a file needs from the list's arrival to the end.
  enum Flag : std::uint8_t {
    kComplete = 1,   ///< every byte and the end are in
    kCommitted = 2,  ///< renamed into place
    kResumed = 4,    ///< the partial file holds kept data: open it without truncating
    kInPlace = 8,    ///< an earlier run completed it: nothing to copy
    /// Opened O_TMPFILE: the data has no name until Commit links it in, so
    /// there is no partial file to create, rename, journal or remove (small
    /// files in new directories only: nothing to resume there).
    kAnonymous = 32,
    /// The file under the final name holds an older version, compared block by
    /// block: blocks the source finds the same arrive as "same" frames. Its
    /// partial file is made only when a block of data arrives, as a copy of
    /// that version; a file that gets none is left as it is (Unchanged).
    kBasis = 16,
  };
  bool Has(std::uint32_t id, Flag flag) const BRAID_REQUIRES(mutex_) {
    return (flags_[id] & flag) != 0;
  }
  void Set(std::uint32_t id, Flag flag) BRAID_REQUIRES(mutex_) {
    flags_[id] = static_cast<std::uint8_t>(flags_[id] | flag);
  }
  /// The file's state in flight, made when first needed.
  SinkFile& InFlight(std::uint32_t id) BRAID_REQUIRES(mutex_);
  /// The file's state in flight, or null when it has none (not begun, or committed).
  SinkFile* FindInFlight(std::uint32_t id) const BRAID_REQUIRES(mutex_);

  [[noreturn]] void Fail(const std::string& path, int err) const;
  /// The name a file's data is written under, for errors: an anonymous file has only its final one.
  std::string WorkingPath(std::uint32_t id) const;
  /// Prepare's part for a directory (`existing`: what lstat found there, or
  /// null); true when it was made.
  bool PrepareDirectory(std::uint32_t id, const std::string& path, const struct stat* existing);
  /// Prepare's part for a symbolic link.
  void PrepareLink(std::uint32_t id, const std::string& path, const struct stat* existing,
                   bool force);
  /// Finds the file each hard link names: a regular file listed before it.
  /// Throws BraidError(kProtocol) for any other name.
  void FindHardLinkTargets();
  /// lstat: a regular file is at `path` (one a copy may replace without -f).
  bool IsRegularFile(const std::string& path) const;
  /// The symbolic link at `path` holds exactly `target`.
  bool LinkReads(const std::string& path, const std::string& target) const;
  /// Something is at `path` already, and -f was not given.
  [[noreturn]] void FailExists(const std::string& path) const;
  /// Marks the target, just made as the copy of directory `name`, for a
  /// re-run to resume into (TreeRootMarkPath).
  void MarkTreeRoot(const std::string& name);
  /// The mode a copy gets: the source's with -p, else the source's less the umask.
  mode_t ModeFor(std::uint32_t id) const;
  [[noreturn]] static void Reject(const std::string& why);
  /// Refuses an id past the list or of an entry without data.
  void CheckDataFile(std::uint32_t id) const;
  /// CheckDataFile, then the file's state in flight.
  SinkFile& Lookup(std::uint32_t id) BRAID_REQUIRES(mutex_);
  /// WriteBlock's wait for room for a file not yet in flight (BoundInFlight).
  void WaitForRoom(MutexLock& lock, std::uint32_t id) BRAID_REQUIRES(mutex_);
  /// Drops a committed file's state and wakes a writer waiting for room.
  void EraseInFlight(std::uint32_t id) BRAID_REQUIRES(mutex_);
  /// What a file complete and committed was sent again is known without its
  /// state: it is all there (a block, or its end, repeated after a lost stream).
  bool DoneWith(std::uint32_t id) const BRAID_REQUIRES(mutex_);
  /// The contiguous bytes from the start of file `id` that are in.
  std::uint64_t PrefixLocked(std::uint32_t id) const BRAID_REQUIRES(mutex_);
  /// Marks `f` complete when its bytes and end are all in; true when that is now.
  bool MarkIfComplete(SinkFile& f) BRAID_REQUIRES(mutex_);
  /// After the lock is let go: wakes the waiters, and calls on_complete_ for a file just completed.
  void Announce(std::uint32_t id, bool now_complete) BRAID_EXCLUDES(mutex_);
  int OpenLocked(SinkFile& f) BRAID_REQUIRES(mutex_);
  /// Whether file `id` may get hole frames: listed sparse, or any file with --sparse.
  bool MayGetHoles(std::uint32_t id) const {
    return list_.kind(id) == FileKind::kRegular && (list_.sparse(id) || sparse_zeros_);
  }
  /// A file that may get holes is given its size at once, so a hole at its
  /// end reads as zeros too (the verifier reads it back).
  void ExtendForHoles(SinkFile& f) BRAID_REQUIRES(mutex_);
  /// Opens `f.fd` as a nameless file in its directory when it may be; false if not.
  bool OpenAnonymous(SinkFile& f) BRAID_REQUIRES(mutex_);
  /// Gives an anonymous file its final name (Commit, after MakeDurable); false
  /// when the name was taken and `force` linked it under its partial name
  /// instead, for Commit's rename to replace what is there.
  bool LinkAnonymous(SinkFile& f, bool force);
  /// Links the nameless file `fd` in at `path`; false with errno set.
  bool LinkDescriptor(int fd, const std::string& path);
  /// A compared file's first block of data: its partial file starts as a copy
  /// of the version under the final name.
  void CopyBasis(SinkFile& f) BRAID_REQUIRES(mutex_);
  /// The version under the final name of a compared file, opened to read once.
  int BasisDescriptor(std::uint32_t id) BRAID_REQUIRES(mutex_);
  bool UnchangedLocked(std::uint32_t id) const BRAID_REQUIRES(mutex_);
  /// Commit of a compared file that stayed unchanged: -p's owner, mode and times on it.
  void CommitUnchanged(std::uint32_t id) BRAID_REQUIRES(mutex_);
  /// -p on a file left as it was (through `fd`): its owner, mode and times
  /// set where they differ from the source's.
  void KeepAttributes(std::uint32_t id, int fd) BRAID_REQUIRES(mutex_);
  /// Commit's rename of the partial file (or link of a nameless one) into place.
  void PutInPlace(SinkFile& f, bool force);
  /// Opens `f.direct_fd` when a large file should bypass the page cache.
  void OpenDirect(SinkFile& f, bool on_tmpfs) BRAID_REQUIRES(mutex_);
  /// One block through `direct_fd` (if valid) or else `fd`; an errno, or 0.
  int WriteThrough(std::uint32_t id, int fd, int direct_fd, const std::uint8_t* data,
                   std::uint32_t length, std::uint64_t offset);
  /// Waits until no write of `f` is under way, so its descriptors may close.
  void AwaitWrites(SinkFile& f, MutexLock& lock) BRAID_REQUIRES(mutex_);
  /// Writes all of `length` bytes with pwrites of at most `piece`; an errno, or 0.
  static int WriteAt(SinkFileSystem& fs, int fd, const std::uint8_t* data, std::uint32_t length,
                     std::uint64_t offset, std::uint32_t piece);
  /// Starts writing a just-written block to the disk (d and dd), without waiting.
  void StartWriteback(std::uint32_t id, int fd, std::uint64_t offset, std::uint32_t length) const;
  /// fsync of each directory named, once each; throws naming the one that fails.
  void SyncEach(const std::set<std::string>& directories) const;

  /// Buffered writers of one file take turns on its stripe, `write_mutexes_[id % kWriteStripes]`:
  /// the kernel serialises buffered writes to an inode anyway, and threads queued on its
  /// lock spin (rwsem_spin_on_owner), which cost up to 4x the CPU of a copy; a
  /// user-space mutex sleeps instead. Striped, not one a file: a heap mutex per
  /// entry cost 48 bytes a file of a million-entry tree, and two files in
  /// flight rarely share a stripe.
  static constexpr std::size_t kWriteStripes = 256;
  std::array<Mutex, kWriteStripes> write_mutexes_;
  Mutex& WriteMutex(std::uint32_t id) { return write_mutexes_[id % kWriteStripes]; }

  /// Stateless as far as SinkFiles is concerned: any thread may call it.
  SinkFileSystem& fs_;
  /// The file list as it was received, never changed.
  const PackedList list_;
  /// A byte a file (Flag), sized in the constructor and never resized.
  std::vector<std::uint8_t> flags_ BRAID_GUARDED_BY(mutex_);
  /// Set by FindNewDirectories before any other thread starts, then only
  /// read: kept apart from flags_, whose bytes other threads write.
  std::vector<bool> in_new_directory_;
  /// -H: each hard link's id and the id of the file it names; set by Prepare
  /// before any other thread starts, then only read.
  std::vector<std::pair<std::uint32_t, std::uint32_t>> hard_links_;
  /// The files in flight, by id (SinkFile says when).
  std::unordered_map<std::uint32_t, std::unique_ptr<SinkFile>> in_flight_ BRAID_GUARDED_BY(mutex_);
  /// In `in_flight_`, complete and waiting to be committed (WaitForRoom).
  std::size_t complete_in_flight_ BRAID_GUARDED_BY(mutex_) = 0;
  const TargetPlan plan_;  ///< set in the constructor
  const std::string host_;
  const bool preserve_;
  FsyncPolicy fsync_ = FsyncPolicy::kData;  ///< set before the receivers start
  bool direct_writes_ = false;              ///< -u t; set before the receivers start
  bool sparse_zeros_ = false;               ///< --sparse; set before the receivers start
  std::optional<std::string> direct_refused_ BRAID_GUARDED_BY(mutex_);
  mutable Mutex mutex_;
  std::condition_variable cv_;  ///< signals new bytes, a file end, or Abort
  /// Signals the verifier's move to its next file, its lasting wait, or Abort: the
  /// ends held back for it wait here, not on cv_, which every block wakes (a -e
  /// copy of small files spent half its CPU time waking them).
  std::condition_variable verifier_cv_;
  std::condition_variable room_cv_;  ///< signals a file's state dropped, or Abort
  std::uint64_t bytes_ BRAID_GUARDED_BY(mutex_) = 0;
  bool aborted_ BRAID_GUARDED_BY(mutex_) = false;
  bool bound_by_verifier_ = false;  ///< set before the receivers start
  std::uint64_t verify_ahead_ = 0;  ///< files; set with it
  std::size_t most_in_flight_ = 0;  ///< BoundInFlight; set before the receivers start
  std::uint32_t verifying_ BRAID_GUARDED_BY(mutex_) = 0;  ///< the verifier's file
  bool verifier_waits_ BRAID_GUARDED_BY(mutex_) = false;  ///< for data not yet here
  /// Compared files until they are committed.
  BasisTable bases_ BRAID_GUARDED_BY(mutex_);
  /// Set before the receivers start.
  std::function<void(std::uint32_t)> on_complete_;
  /// Cleared when a file system refuses O_TMPFILE; every file then gets a partial.
  bool anonymous_ok_ BRAID_GUARDED_BY(mutex_) = true;
  /// Cleared when linkat(AT_EMPTY_PATH) needs a capability we lack (not root):
  /// the link then goes through /proc/self/fd. Committing thread only.
  bool link_empty_path_ok_ = true;
};

}  // namespace braid
