#include "source/source_session.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "braid/direct_io.h"
#include "braid/mutex.h"
#include "braid/unique_fd.h"
#include "security/crypto/file_digest.h"
#include "security/crypto/payload_checksum.h"
#include "session/blocking_queue.h"
#include "session/buffer_pool.h"
#include "session/shell_command.h"
#include "session/stream_loss.h"
#include "session/stream_setup.h"
#include "source/block_pieces.h"
#include "source/block_scheduler.h"
#include "source/file_digests.h"
#include "source/file_holes.h"
#include "source/source_change.h"
#include "source/token_bucket.h"
#include "transport/block_codec.h"
#include "transport/data_connector.h"
#include "transport/data_socket.h"
#include "transport/frame_stream.h"
#include "transport/tcp_info.h"

namespace braid {
namespace {

/// -z: how long the source waits for the sink's streams, and how long after
/// the latest one it stops waiting for the rest.
constexpr auto kAcceptDeadline = std::chrono::seconds(60);
constexpr auto kAcceptIdle = std::chrono::seconds(3);
/// Files from this size on are read with doubled readahead.
constexpr std::uint64_t kSequentialMinSize = 1u << 20;
/// File ends the reader (or the hasher) queues ahead of the senders at most.
constexpr std::size_t kMaxQueuedEnds = 4096;
/// -R: how often the end of a growing file is looked at again.
constexpr int kGrowingPollMs = 100;

/// One frame waiting to be sent: a block (payload in `buffer`), a file end,
/// or the end of a pass (`pass_end`: the sender ends its pass and waits for the
/// sink to say whether anything must be sent again).
struct OutFrame {
  FrameHeader header;
  BufferRef buffer;
  DigestValue digest;            ///< a file end's, with -E
  std::uint32_t payload_at = 0;  ///< a data frame's first byte in `buffer` (a piece of a block)
  bool pass_end = false;
  bool repeat = false;  ///< a file end the sink asked for again: not another file done
};

/// What the hasher sees, in file order.
struct HashItem {
  std::uint32_t file_id = 0;
  BufferRef buffer;  ///< null for the file's end
  std::uint32_t length = 0;
  std::uint64_t end_size = 0;
};

}  // namespace

struct SourceSession::Impl {
  /// Set by the constructor, ListenInstead and Run before any thread starts; read-only after.
  SourceList list;  ///< the one copy of the file list
  SourceStart start;
  std::string host;
  std::function<void(const std::string&)> warn;
  std::optional<ListenPlan> listen_plan;  ///< -z
  std::function<void(const SourceReady&)> listening;
  /// The streams connected; set by Run before the senders start.
  std::size_t connected = 0;

  /// -u s: the file the first pass reads, opened O_DIRECT beside its buffered
  /// descriptor (which reads what O_DIRECT cannot); the reader thread's alone.
  UniqueFd direct_read;
  /// A hole's hash, for blocks of a compared file; the reader thread's alone.
  ZeroBlockHasher zero_hasher;
  /// -N i: the command whose output is being read; the reader thread's alone.
  std::unique_ptr<ShellCommand> command;
  /// A hop of a chain: the feed of the sink being followed (it locks itself);
  /// null otherwise. Set by Follow before Run.
  std::unique_ptr<FollowFeed> feed;
  /// Following: how long the reader has waited for the feed, in all (ns).
  std::atomic<std::uint64_t> feed_wait_ns{0};
  bool direct_refused = false;  ///< warned that a file system refuses O_DIRECT; reader only

  /// These lock themselves.
  BlockingQueue<OutFrame> send_queue;
  BlockingQueue<HashItem> hash_queue;
  /// Ranges the sink asked for again, one batch per repair pass.
  BlockingQueue<std::vector<ResendRange>> repair_queue;
  /// -x: one bucket for all senders, so the limit is on the total; null = unlimited.
  /// Made by the constructor and never replaced.
  std::unique_ptr<RateLimiter> limiter;
  /// --polite pacing, separate from -x so that lifting it never lifts the user's limit.
  /// Made by the constructor and never replaced, so the reporter thread may read it.
  std::unique_ptr<RateLimiter> pacer;
  /// Readable once the transfer is aborted: wakes a reader blocked on a pipe
  /// or terminal that may never deliver another byte. Made with the Impl.
  UniqueFd abort_event{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};

  /// Guards filling `sockets` against the reporter thread (StreamSamples, SetPace).
  mutable Mutex sockets_mutex;
  std::vector<std::unique_ptr<DataSocket>> sockets BRAID_GUARDED_BY(sockets_mutex);
  std::vector<std::uint16_t> stream_index BRAID_GUARDED_BY(sockets_mutex);  ///< of sockets[i]
  /// Bytes sent by sockets[i]; atomic, one writer each, so per-stream reports cost no contention.
  std::array<std::atomic<std::uint64_t>, kMaxStreamSamples> stream_bytes{};

  /// The highest repair pass handed to the reader: the sink asks on every live
  /// stream, and the first sender to read the request hands it on.
  std::atomic<std::uint64_t> repair_pass{0};
  /// Senders still running; a pass ends with one pass-end marker for each.
  std::atomic<std::size_t> live_senders{0};
  std::atomic<std::size_t> lost_streams{0};
  /// The sink closed a stream after a pass: it has everything.
  std::atomic<bool> sink_has_all{false};

  /// -s auto: senders at positions >= active park. Once the first pass is
  /// read, every sender works: each must take its pass-end marker.
  mutable Mutex park_mutex;
  std::condition_variable park_cv;  ///< signals a change of `active` or `all_work`, or the abort
  int active BRAID_GUARDED_BY(park_mutex) = kMaxStreams;
  bool all_work BRAID_GUARDED_BY(park_mutex) = false;
  /// Made by Run once the streams are connected; SetActiveStreams (the
  /// reporter thread) limits it, perhaps before that.
  std::unique_ptr<BufferPool> pool BRAID_GUARDED_BY(park_mutex);
  std::size_t spare_buffers BRAID_GUARDED_BY(park_mutex) = 4;  ///< beyond two per active stream

  /// Each file's digest (-E), kept for a file end the sink asks for again.
  /// Written by the hasher before the pass ends; read by the reader only after
  /// a repair request, which the queues order after it.
  FileDigests file_digest;

  bool hashing() const { return start.params.hash != HashAlgorithm::kNone; }
  BufferPool& Pool() {
    MutexLock lock(park_mutex);
    return *pool;
  }
  /// Waits while this sender is parked; false once the transfer failed.
  bool WaitTurn(std::size_t position, TransferState& state) {
    MutexLock lock(park_mutex);
    while (!all_work && static_cast<int>(position) >= active && !state.failed()) {
      park_cv.wait(lock.native());
    }
    return !state.failed();
  }
  void WakeAll() {
    {
      MutexLock lock(park_mutex);
      all_work = true;
    }
    park_cv.notify_all();
  }

  // Run's steps.
  void BringUpStreams(TransferState& state);
  void AddStream(AuthenticatedStream c);
  void MakePool();
  void OnAbort();
  void RunThreads(TransferState& state);

  // The reader, the hasher, the senders.
  void ReadAll(TransferState& state);
  void ReadFirstPass(BufferPool& pool, TransferState& state);
  /// Reads one step of the first pass and queues it; false once the transfer failed.
  bool ReadStep(BufferPool& pool, int fd, const SourceFile& f, const BlockStep& step,
                BlockScheduler& scheduler, TransferState& state);
  void QueueFileEnd(const BlockStep& step);
  void QueueData(const BlockStep& step, BufferRef buffer, std::uint32_t got);
  /// A frame without payload for `length` bytes at `offset`: kSame (the
  /// sink holds them already) or kHole.
  void QueueRange(FrameType type, std::uint32_t file_id, std::uint64_t offset,
                  std::uint32_t length);
  /// A compared block read whole: runs of pieces that hash as the target's
  /// as same frames, the rest as data.
  void QueueCompared(const BlockStep& step, BufferRef buffer, std::uint32_t got);
  /// A data frame of `length` bytes of `buffer` from `payload_at` (a piece of a block).
  void QueueDataRange(std::uint32_t file_id, std::uint64_t offset, const BufferRef& buffer,
                      std::uint32_t payload_at, std::uint32_t length);
  /// Whether the target's pieces of this block all hash as zeros (a hole there too).
  bool HolesAlike(const BlockStep& step);
  /// A block read whole, queued as data and holes (one data frame when it has none).
  void QueuePieces(int fd, const SourceFile& f, const BlockStep& step, BufferRef buffer,
                   std::uint32_t got);
  /// A listed sparse file's holes in the block; empty for any other.
  std::vector<FileRange> HolesOf(int fd, const SourceFile& f, const BlockStep& step) const {
    if (!f.entry.sparse) return {};
    return FileHolesIn(fd, step.offset, step.offset + step.length);
  }
  /// A block that is a hole from end to end: queued without a read (zeros for
  /// the hasher). False if the block holds data.
  bool QueueWholeHole(BufferPool& pool, int fd, const SourceFile& f, const BlockStep& step);
  void Repair(BufferPool& pool, const std::vector<ResendRange>& ranges, TransferState& state);
  void QueueRepeatedEnd(const ResendRange& r);
  void HashAll(TransferState& state);
  void SendAll(DataSocket& socket, std::size_t position, TransferState& state);
  void SendFrames(DataSocket& socket, std::size_t position, TransferState& state);
  /// A pass-end marker: sends the pass end and takes the sink's answer. False: the sink has all.
  bool SendPassEnd(FrameStream& frames, std::vector<std::uint8_t>& reply);
  void SendFrame(FrameStream& frames, OutFrame& frame, std::optional<BlockCompressor>& compressor,
                 std::atomic<std::uint64_t>& stream_sent, TransferState& state);
  void EndPass() {
    WakeAll();
    std::size_t n = live_senders.load();
    for (std::size_t i = 0; i < n; ++i) {
      OutFrame marker;
      marker.pass_end = true;
      send_queue.Push(std::move(marker));
    }
  }
  /// Reads one block and queues it for sending; false once the transfer failed.
  bool QueueBlock(BufferPool& pool, int fd, const SourceFile& f, const BlockStep& step,
                  TransferState& state);
  /// Opens a file to read it; one of more than a block is checked to be still as listed.
  UniqueFd OpenToRead(const SourceFile& f) const;
  /// Following: waits until the sink being followed has the bytes of `step`;
  /// true once the file is in place under its final name.
  bool AwaitFollowed(const BlockStep& step);
  /// Following: opens `f` where its data is now: its partial file while it
  /// arrives (which keeps the data when it is renamed), else its final name.
  UniqueFd OpenFollowed(const SourceFile& f, bool in_place) const;
  /// Following, with -E: the digest of what was read must be the first source's.
  void CheckFollowedDigest(std::uint32_t id, const DigestValue& read) const;
  /// A regular file's size, mtime and ctime against its listing: throws if it changed.
  void CheckUnchanged(int fd, const SourceFile& f) const;
  /// Once a regular file is read: unchanged, and nothing past its listed end.
  void CheckReadWhole(int fd, const SourceFile& f) const;
  std::uint32_t ReadBlock(int fd, const SourceFile& f, const BlockStep& step, std::uint8_t* out);
  /// -R: at the end of what `f` holds now, whether to wait for more: its
  /// mtime is more recent than the quiet time (then it waits a moment first).
  bool StillGrowing(int fd, const SourceFile& f);
  /// -u s: opens the first pass's file `f` O_DIRECT into `direct_read`, or
  /// warns once that its file system refuses and leaves it closed.
  void OpenDirect(const SourceFile& f);
  /// A block read through `direct_read`: the bytes read (short only at the
  /// file's end), or nullopt when this block cannot go that way.
  std::optional<std::uint32_t> ReadDirect(const SourceFile& f, const BlockStep& step,
                                          std::uint8_t* out);
  [[noreturn]] void ReadFailed(const SourceFile& f, int err) const {
    throw BraidError(ErrorCode::kSourceUnreadable, DescribeErrno(host, f.local_path, err));
  }
  [[noreturn]] void Changed(const SourceFile& f, const std::string& why) const {
    throw BraidError(ErrorCode::kSourceUnreadable, ChangedMessage(host, f.local_path, why));
  }
  /// A read of a regular file that ended before the block did: it changed.
  [[noreturn]] void ShortRead(int fd, const SourceFile& f, std::uint64_t at) const {
    CheckUnchanged(fd, f);
    Changed(f, "a read ended at byte " + std::to_string(at) + ", before the " +
                   std::to_string(f.entry.size) + " bytes it was listed with");
  }
};

SourceSession::SourceSession(SourceList files, SourceStart start, std::string host)
    : impl_(std::make_unique<Impl>()) {
  impl_->list = std::move(files);
  impl_->start = std::move(start);
  impl_->host = std::move(host);
  // Made here, before any thread runs, and never replaced: the reporter's
  // SetPace reads `pacer` while Run is still setting up the streams.
  const TransferParams& p = impl_->start.params;
  if (p.polite) impl_->pacer = std::make_unique<RateLimiter>(0, p.block_size);
  if (p.rate > 0) impl_->limiter = std::make_unique<RateLimiter>(p.rate, p.block_size);
}

SourceSession::~SourceSession() = default;

void SourceSession::Impl::OpenDirect(const SourceFile& f) {
  direct_read.Reset();
  if ((start.params.direct & kDirectReads) == 0 || f.entry.kind != FileKind::kRegular) return;
  direct_read.Reset(::open(f.local_path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
  if (direct_read.valid() || direct_refused) return;
  direct_refused = true;  // tmpfs and some network file systems: EINVAL
  warn("-u s: " + DescribeErrno(host, f.local_path, errno) +
       " when opened O_DIRECT; reading it and any such file through the page cache");
}

std::optional<std::uint32_t> SourceSession::Impl::ReadDirect(const SourceFile& f,
                                                             const BlockStep& step,
                                                             std::uint8_t* out) {
  // The tail of a file is read as a whole unit; what lies past the listed
  // end (a file that grew) is not taken.
  const std::uint32_t want =
      (step.length + kDirectAlignment - 1) / kDirectAlignment * kDirectAlignment;
  if (!direct_read.valid() || want > start.params.block_size ||
      !DirectAligned(out, step.offset, want)) {
    return std::nullopt;
  }
  ssize_t n = -1;
  do {
    n = ::pread(direct_read.get(), out, want, static_cast<off_t>(step.offset));
  } while (n < 0 && errno == EINTR);
  if (n < 0 && errno == EINVAL) return std::nullopt;  // alignment this file system wants more of
  if (n < 0) ReadFailed(f, errno);
  return static_cast<std::uint32_t>(std::min<ssize_t>(n, step.length));
}

std::uint32_t SourceSession::Impl::ReadBlock(int fd, const SourceFile& f, const BlockStep& step,
                                             std::uint8_t* out) {
  if (std::optional<std::uint32_t> got = ReadDirect(f, step, out)) return *got;
  bool seekable = f.entry.kind == FileKind::kRegular;
  std::uint32_t got = 0;
  while (got < step.length) {
    if (!seekable) {
      pollfd fds[2] = {{fd, POLLIN, 0}, {abort_event.get(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) ReadFailed(f, errno);
      if (fds[1].revents != 0) return got;  // aborted; the caller sees the failure
      if (fds[0].revents == 0) continue;
    }
    ssize_t n =
        seekable ? ::pread(fd, out + got, step.length - got, static_cast<off_t>(step.offset + got))
                 : ::read(fd, out + got, step.length - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      ReadFailed(f, errno);
    }
    if (n == 0 && !seekable && StillGrowing(fd, f)) continue;
    if (n == 0) break;
    got += static_cast<std::uint32_t>(n);
  }
  return got;
}

bool SourceSession::Impl::StillGrowing(int fd, const SourceFile& f) {
  if (list.growing_ms == 0) return false;
  struct stat st {};
  if (::fstat(fd, &st) != 0) ReadFailed(f, errno);
  if (!S_ISREG(st.st_mode)) return false;  // stdin or a pipe ends at its EOF
  // The file's own mtime says when it last grew, so a file already quiet
  // ends at once and only one being written is waited for.
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  const double quiet_s = static_cast<double>(now.tv_sec - st.st_mtim.tv_sec) +
                         static_cast<double>(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
  // An mtime in the future (another clock wrote it) says nothing: not waited for.
  if (quiet_s < 0 || quiet_s * 1000 >= list.growing_ms) return false;
  // Look again in a moment; an abort wakes the wait (the caller's poll sees it).
  pollfd abort_fd = {abort_event.get(), POLLIN, 0};
  ::poll(&abort_fd, 1, kGrowingPollMs);
  return true;
}

void SourceSession::Impl::ReadAll(TransferState& state) {
  BufferPool& pool = Pool();
  ReadFirstPass(pool, state);
  direct_read.Reset();  // later passes read through the cache: a few blocks, any file
  if (hashing()) {
    hash_queue.Close();  // the hasher ends the pass
  } else {
    EndPass();
  }
  // Later passes send only what the sink lost with a dead stream.
  while (std::optional<std::vector<ResendRange>> ranges = repair_queue.Pop()) {
    Repair(pool, *ranges, state);
    if (state.failed()) return;
    EndPass();
  }
}

void SourceSession::Impl::ReadFirstPass(BufferPool& pool, TransferState& state) {
  // The resume list is the scheduler's from here: only the first pass asks it.
  BlockScheduler scheduler(list.entries, start.params.block_size, std::move(start.resume),
                           hashing());
  UniqueFd fd;
  std::uint32_t open_id = UINT32_MAX;
  while (!state.failed()) {
    std::optional<BlockStep> step = scheduler.Next();
    if (!step) break;
    if (step->kind == BlockStep::Kind::kFileEnd) {
      // Its end goes out only once what was read is known to be one version of it.
      if (open_id == step->file_id) CheckReadWhole(fd.get(), list.File(step->file_id));
      fd.Reset();
      direct_read.Reset();
      open_id = UINT32_MAX;
      // Its end goes out only if the command that wrote it succeeded.
      if (command) command->Finish();
      command.reset();
      QueueFileEnd(*step);
      continue;
    }
    const SourceFile f = list.File(step->file_id);
    const bool in_place = feed && AwaitFollowed(*step);
    if (open_id != step->file_id) {
      if (list.command) {
        command =
            std::make_unique<ShellCommand>(f.local_path, ShellCommand::Direction::kReadItsOutput,
                                           host, ErrorCode::kSourceUnreadable);
      }
      fd = command ? command->TakePipe() : feed ? OpenFollowed(f, in_place) : OpenToRead(f);
      OpenDirect(f);
      open_id = step->file_id;
    }
    if (!ReadStep(pool, fd.get(), f, *step, scheduler, state)) break;
  }
}

bool SourceSession::Impl::AwaitFollowed(const BlockStep& step) {
  const auto asked = std::chrono::steady_clock::now();
  const bool committed = feed->WaitFor(step.file_id, step.offset + step.length, false).committed;
  feed_wait_ns += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - asked)
          .count());
  return committed;
}

UniqueFd SourceSession::Impl::OpenFollowed(const SourceFile& f, bool in_place) const {
  if (!in_place) {
    UniqueFd partial(::open(PartialPath(f.local_path).c_str(), O_RDONLY | O_CLOEXEC));
    if (partial.valid() || errno != ENOENT) {
      if (!partial.valid()) ReadFailed(f, errno);
      return partial;
    }
    // Renamed into place since the feed answered.
  }
  UniqueFd fd(::open(f.local_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) ReadFailed(f, errno);
  return fd;
}

void SourceSession::Impl::CheckFollowedDigest(std::uint32_t id, const DigestValue& read) const {
  FollowedFile there = feed->WaitFor(id, list.entries.file_size(id), true);
  // Once in place it was verified there against the first source's digest.
  if (there.committed || !there.digest || *there.digest == read) return;
  throw BraidError(ErrorCode::kIntegrity, (host.empty() ? "" : host + ":") +
                                              list.File(id).local_path +
                                              ": what was read differs from what the first "
                                              "source sent (their digests differ)");
}

UniqueFd SourceSession::Impl::OpenToRead(const SourceFile& f) const {
  if (feed) {
    const std::uint64_t size = f.entry.size == kUnknownSize ? 0 : f.entry.size;
    return OpenFollowed(f, feed->WaitFor(f.entry.id, size, false).committed);
  }
  UniqueFd fd(f.local_path == "-" ? ::dup(STDIN_FILENO)
                                  : ::open(f.local_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) ReadFailed(f, errno);
  // Readahead doubles for a file read straight through; a small file is
  // read in one go, and the call cost a syscall per file of a tree.
  if (f.entry.kind == FileKind::kRegular && f.entry.size >= kSequentialMinSize) {
    ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  // The check once it is read is the one that counts; a file of more than a
  // block is checked now too, so that one that changed since it was listed
  // fails before its data goes out (a small file is spared the fstat).
  if (f.entry.size > start.params.block_size) CheckUnchanged(fd.get(), f);
  return fd;
}

void SourceSession::Impl::CheckUnchanged(int fd, const SourceFile& f) const {
  // A stream is what its reads return; a followed file changes as it arrives.
  if (f.entry.kind != FileKind::kRegular || feed) return;
  struct stat st {};
  if (::fstat(fd, &st) != 0) ReadFailed(f, errno);
  if (std::optional<std::string> why = DescribeChange(f.stamp, StampOf(st))) Changed(f, *why);
}

void SourceSession::Impl::CheckReadWhole(int fd, const SourceFile& f) const {
  if (feed) return;  // the file being written there may hold more already
  CheckUnchanged(fd, f);
  // A file read only up to --size may well go on; any other must end where
  // it was listed to, whatever its size now says.
  if (f.entry.kind != FileKind::kRegular || f.entry.size != f.stamp.size) return;
  std::uint8_t byte = 0;
  if (::pread(fd, &byte, 1, static_cast<off_t>(f.entry.size)) > 0) {
    Changed(f,
            "it holds more than the " + std::to_string(f.entry.size) + " bytes it was listed with");
  }
}

bool SourceSession::Impl::ReadStep(BufferPool& pool, int fd, const SourceFile& f,
                                   const BlockStep& step, BlockScheduler& scheduler,
                                   TransferState& state) {
  if (QueueWholeHole(pool, fd, f, step)) return !state.failed();
  BufferRef buffer = pool.Acquire();
  if (!buffer) return false;
  std::uint32_t got = ReadBlock(fd, f, step, buffer->data());
  if (state.failed()) return false;
  if (f.entry.size == kUnknownSize) {
    scheduler.Delivered(got);
  } else if (got < step.length) {
    ShortRead(fd, f, step.offset + got);
  }
  if (got == 0) return true;
  if (hashing()) hash_queue.Push(HashItem{step.file_id, buffer, got, 0});
  if (step.kind == BlockStep::Kind::kHashOnly) return true;  // the sink kept it
  if (!step.expected.empty() && got == step.length) {
    QueueCompared(step, std::move(buffer), got);
    return true;
  }
  QueuePieces(fd, f, step, std::move(buffer), got);
  return true;
}

void SourceSession::Impl::QueueCompared(const BlockStep& step, BufferRef buffer,
                                        std::uint32_t got) {
  // Runs of pieces alike go as one same frame each, runs that differ as data.
  std::uint32_t run_begin = 0;
  bool run_same = false;
  auto flush = [&](std::uint32_t end) {
    if (end == run_begin) return;
    if (run_same) {
      QueueRange(FrameType::kSame, step.file_id, step.offset + run_begin, end - run_begin);
    } else {
      QueueDataRange(step.file_id, step.offset + run_begin, buffer, run_begin, end - run_begin);
    }
  };
  std::size_t i = 0;
  for (std::uint32_t at = 0; at < got; at += step.piece, ++i) {
    const std::uint32_t length = std::min(step.piece, got - at);
    const bool same =
        i < step.expected.size() && BlockHash128({buffer->data() + at, length}) == step.expected[i];
    if (at > 0 && same != run_same) {
      flush(at);
      run_begin = at;
    }
    run_same = same;
  }
  flush(got);
}

bool SourceSession::Impl::HolesAlike(const BlockStep& step) {
  if (step.expected.empty()) return false;
  std::size_t i = 0;
  for (std::uint32_t at = 0; at < step.length; at += step.piece, ++i) {
    const std::uint32_t length = std::min(step.piece, step.length - at);
    if (i >= step.expected.size() || zero_hasher.Hash(length) != step.expected[i]) return false;
  }
  return true;
}

bool SourceSession::Impl::QueueWholeHole(BufferPool& pool, int fd, const SourceFile& f,
                                         const BlockStep& step) {
  std::vector<FileRange> holes = HolesOf(fd, f, step);
  if (holes.size() != 1 || holes[0] != FileRange{step.offset, step.offset + step.length}) {
    return false;
  }
  // Not read: a hole reads as zeros, which the page cache would hold for nothing.
  if (hashing()) {
    BufferRef zeros = pool.Acquire();
    if (!zeros) return true;  // aborted
    std::memset(zeros->data(), 0, step.length);
    hash_queue.Push(HashItem{step.file_id, std::move(zeros), step.length, 0});
  }
  if (step.kind == BlockStep::Kind::kHashOnly) return true;
  // The target's version compared: a hole it has too is the same.
  if (HolesAlike(step)) {
    QueueRange(FrameType::kSame, step.file_id, step.offset, step.length);
  } else {
    QueueRange(FrameType::kHole, step.file_id, step.offset, step.length);
  }
  return true;
}

void SourceSession::Impl::QueuePieces(int fd, const SourceFile& f, const BlockStep& step,
                                      BufferRef buffer, std::uint32_t got) {
  const bool zero_runs = start.params.sparse_zeros && f.entry.kind == FileKind::kRegular;
  if (!f.entry.sparse && !zero_runs) {
    QueueData(step, std::move(buffer), got);
    return;
  }
  const BlockStep read{step.kind, step.file_id, step.offset, got};
  std::vector<BlockPiece> pieces =
      SplitBlock(step.offset, got, HolesOf(fd, f, read), {buffer->data(), got}, zero_runs);
  for (const BlockPiece& piece : pieces) {
    if (piece.hole) {
      QueueRange(FrameType::kHole, step.file_id, step.offset + piece.begin,
                 piece.end - piece.begin);
      continue;
    }
    QueueDataRange(step.file_id, step.offset + piece.begin, buffer, piece.begin,
                   piece.end - piece.begin);
  }
}

void SourceSession::Impl::QueueDataRange(std::uint32_t file_id, std::uint64_t offset,
                                         const BufferRef& buffer, std::uint32_t payload_at,
                                         std::uint32_t length) {
  OutFrame frame;
  frame.header = {.type = FrameType::kData,
                  .file_id = file_id,
                  .length = length,
                  .offset = offset,
                  .raw_length = length};
  frame.buffer = buffer;
  frame.payload_at = payload_at;
  send_queue.Push(std::move(frame));
}

/// Bounded as file ends are: it holds no buffer from the pool.
void SourceSession::Impl::QueueRange(FrameType type, std::uint32_t file_id, std::uint64_t offset,
                                     std::uint32_t length) {
  OutFrame range;
  range.header = {.type = type, .file_id = file_id, .offset = offset, .raw_length = length};
  send_queue.PushBounded(std::move(range), kMaxQueuedEnds);
}

/// With -E the hasher queues the file end, with the digest, once it has hashed the file.
void SourceSession::Impl::QueueFileEnd(const BlockStep& step) {
  // Bounded: a file end needs no buffer from the pool, so nothing else stops
  // the reader from queueing a tree of a million empty files at once.
  if (hashing()) {
    hash_queue.PushBounded(HashItem{step.file_id, nullptr, 0, step.offset}, kMaxQueuedEnds);
    return;
  }
  OutFrame end;
  end.header = {.type = FrameType::kFileEnd, .file_id = step.file_id, .offset = step.offset};
  send_queue.PushBounded(std::move(end), kMaxQueuedEnds);
}

void SourceSession::Impl::QueueData(const BlockStep& step, BufferRef buffer, std::uint32_t got) {
  OutFrame frame;
  frame.header = {.type = FrameType::kData,
                  .file_id = step.file_id,
                  .length = got,
                  .offset = step.offset,
                  .raw_length = got};
  frame.buffer = std::move(buffer);
  send_queue.Push(std::move(frame));
}

void SourceSession::Impl::Repair(BufferPool& pool, const std::vector<ResendRange>& ranges,
                                 TransferState& state) {
  for (const ResendRange& r : ranges) {
    if (r.file_id >= list.entries.size() || list.entries.kind(r.file_id) != FileKind::kRegular ||
        r.offset > list.entries.file_size(r.file_id) ||
        r.length > list.entries.file_size(r.file_id) - r.offset) {
      throw BraidError(ErrorCode::kProtocol,
                       "protocol error: the sink asked again for data outside the file list");
    }
    if (r.length == 0) {
      QueueRepeatedEnd(r);
      continue;
    }
    const SourceFile f = list.File(r.file_id);
    UniqueFd fd = OpenToRead(f);
    std::uint64_t block = start.params.block_size;
    for (std::uint64_t at = r.offset; at < r.offset + r.length; at += block) {
      auto length = static_cast<std::uint32_t>(std::min(block, r.offset + r.length - at));
      if (!QueueBlock(pool, fd.get(), f, {BlockStep::Kind::kBlock, r.file_id, at, length}, state)) {
        return;
      }
    }
  }
}

/// A file end the sink asks for again (length 0): its digest is the one the hasher kept.
void SourceSession::Impl::QueueRepeatedEnd(const ResendRange& r) {
  OutFrame end;
  end.header = {.type = FrameType::kFileEnd,
                .file_id = r.file_id,
                .offset = list.entries.file_size(r.file_id)};
  end.repeat = true;
  if (hashing()) {
    std::optional<DigestValue> digest = file_digest.Get(r.file_id);
    if (!digest) {
      throw BraidError(ErrorCode::kProtocol,
                       "protocol error: the sink asked for the end of a file not yet read");
    }
    end.header.flags = kFlagHasDigest;
    end.digest = *digest;
    end.header.length = end.digest.size;
  }
  send_queue.Push(std::move(end));
}

bool SourceSession::Impl::QueueBlock(BufferPool& pool, int fd, const SourceFile& f,
                                     const BlockStep& step, TransferState& state) {
  BufferRef buffer = pool.Acquire();
  if (!buffer) return false;
  std::uint32_t got = ReadBlock(fd, f, step, buffer->data());
  if (state.failed()) return false;
  if (got < step.length) ShortRead(fd, f, step.offset + got);
  // The file's end went out in the first pass, so a block sent again may be
  // the last the sink needs: it goes only if it is of the version first read.
  CheckUnchanged(fd, f);
  QueuePieces(fd, f, step, std::move(buffer), got);
  return true;
}

void SourceSession::Impl::HashAll(TransferState& state) {
  FileDigest digest(start.params.hash);
  while (std::optional<HashItem> item = hash_queue.Pop()) {
    if (item->buffer) {
      digest.Update(item->buffer->data(), item->length);
      continue;
    }
    OutFrame end;
    end.digest = digest.Finish();
    if (feed) CheckFollowedDigest(item->file_id, end.digest);
    end.header = {.type = FrameType::kFileEnd,
                  .flags = kFlagHasDigest,
                  .file_id = item->file_id,
                  .length = end.digest.size,
                  .offset = item->end_size};
    file_digest.Put(item->file_id, end.digest);
    send_queue.PushBounded(std::move(end), kMaxQueuedEnds);
  }
  if (!state.failed()) EndPass();
}

void SourceSession::Impl::SendAll(DataSocket& socket, std::size_t position, TransferState& state) {
  try {
    SendFrames(socket, position, state);
  } catch (const BraidError& e) {
    // A stream that dies is not the end of the copy: what it was sending goes
    // back to the queue, and the sink asks again for what it lost in flight.
    live_senders.fetch_sub(1);
    if (!LostOnItsOwn(e, state)) throw;
    if (sink_has_all.load()) return;  // it died after the last pass: no loss
    warn(SurviveStreamLoss(e, connected, lost_streams.fetch_add(1) + 1));
    return;
  }
  live_senders.fetch_sub(1);
}

void SourceSession::Impl::SendFrames(DataSocket& socket, std::size_t position,
                                     TransferState& state) {
  std::atomic<std::uint64_t>& stream_sent = stream_bytes[position];
  // Made here, on the stream's own sender thread, which alone seals and opens its frames.
  FrameStream frames(socket, start.params.block_size);
  std::optional<BlockCompressor> compressor;
  if (start.params.compress_level > 0) {
    compressor.emplace(start.params.compress_level, start.params.block_size);
  }
  std::vector<std::uint8_t> reply;
  while (WaitTurn(position, state)) {
    std::optional<OutFrame> frame = send_queue.Pop();
    if (!frame) break;
    if (frame->pass_end) {
      if (!SendPassEnd(frames, reply)) return;
      continue;
    }
    try {
      SendFrame(frames, *frame, compressor, stream_sent, state);
    } catch (const BraidError&) {
      if (!state.failed()) send_queue.PushFront(std::move(*frame));
      throw;
    }
  }
}

bool SourceSession::Impl::SendPassEnd(FrameStream& frames, std::vector<std::uint8_t>& reply) {
  // Every stream is connected before the first frame goes out, so the
  // count tells the sink how many streams to wait for; and how many are left
  // here, so that it need not wait for one whose connection timed out at
  // this end (which that end may never hear of).
  auto count = static_cast<std::uint32_t>(connected);
  auto still =
      static_cast<std::uint32_t>(std::clamp<std::size_t>(live_senders.load(), 1, connected));
  frames.Send(FrameHeader{.type = FrameType::kPassEnd, .file_id = count, .raw_length = still}, {});
  // The sink answers only when every stream's pass end is in.
  frames.socket().Push();
  // The sink closes the stream when it has everything.
  std::optional<FrameHeader> next = frames.ReadHeader();
  if (!next) {
    sink_has_all = true;
    return false;
  }
  const FrameHeader h = *next;
  if (h.type != FrameType::kResend) {
    frames.Refuse(
        BraidError(ErrorCode::kProtocol, "protocol error: unexpected frame from the sink"));
  }
  reply.resize(h.length);
  if (!frames.ReadPayload(reply)) {
    throw BraidError(ErrorCode::kIntegrity,
                     "resend request checksum mismatch from " + frames.socket().peer());
  }
  std::vector<ResendRange> ranges = DecodeResendList(reply);
  std::uint64_t seen = repair_pass.load();
  while (h.offset > seen && !repair_pass.compare_exchange_weak(seen, h.offset)) {
  }
  if (h.offset > seen) repair_queue.Push(std::move(ranges));
  return true;
}

void SourceSession::Impl::SendFrame(FrameStream& frames, OutFrame& frame,
                                    std::optional<BlockCompressor>& compressor,
                                    std::atomic<std::uint64_t>& stream_sent, TransferState& state) {
  if (frame.header.type != FrameType::kData) {
    std::span<const std::uint8_t> digest;
    if ((frame.header.flags & kFlagHasDigest) != 0) digest = frame.digest.view();
    frames.Send(frame.header, digest);
    if (frame.header.type == FrameType::kFileEnd && !frame.repeat) state.files_done.fetch_add(1);
    // A block the target already holds counts as done, and costs no payload.
    if (frame.header.type == FrameType::kSame) state.same_bytes.fetch_add(frame.header.raw_length);
    // A hole is the file's bytes, delivered without any on the wire.
    if (frame.header.type == FrameType::kHole) state.bytes.fetch_add(frame.header.raw_length);
    return;
  }
  FrameHeader header = frame.header;  // the frame stays as it was, should it go back to the queue
  std::span<const std::uint8_t> payload(frame.buffer->data() + frame.payload_at, header.length);
  if (compressor) {
    EncodedBlock encoded = compressor->Encode(payload);
    payload = encoded.payload;
    if (encoded.compressed) {
      header.flags |= kFlagCompressed;
      header.length = static_cast<std::uint32_t>(payload.size());
    }
  }
  if (limiter && !limiter->Acquire(header.length)) return;  // aborted
  if (pacer && !pacer->Acquire(header.length)) return;
  // Compressed first, then sealed (into the stream's scratch: the block buffer
  // stays clear for the -E hasher, and for another stream should this one die).
  frames.Send(header, payload);
  frame.buffer.reset();
  state.bytes.fetch_add(header.raw_length);
  state.wire_bytes.fetch_add(header.length);
  stream_sent.fetch_add(header.length, std::memory_order_relaxed);
}

void SourceSession::Run(const std::function<void(const std::string&)>& warn) {
  Impl& s = *impl_;
  s.warn = warn;
  // Only with -e or -E: nothing is kept otherwise.
  if (s.hashing()) s.file_digest.Reset(s.list.entries.size(), s.start.params.hash);
  const TransferParams& p = s.start.params;
  // Without this, a congestion control this kernel lacks would surface as a failed connect.
  CheckCongestionControl(p.congestion_control, s.host);
  s.BringUpStreams(state_);
  state_.streams = static_cast<std::uint16_t>(s.connected);
  s.live_senders = s.connected;
  s.MakePool();
  if (p.auto_streams) {
    // The controller starts from a few streams and opens more when they pay.
    SetActiveStreams(std::min<int>(p.min_streams > 2 ? p.min_streams : 2, p.streams));
  }
  state_.OnAbort([&s] { s.OnAbort(); });
  s.RunThreads(state_);
  if (auto e = state_.error()) throw *e;
}

/// Connects the streams to the sink, or with -z accepts the sink's.
void SourceSession::Impl::BringUpStreams(TransferState& state) {
  const TransferParams& p = start.params;
  auto add = [this](AuthenticatedStream c) { AddStream(std::move(c)); };
  if (listen_plan) {
    DataListener listener(listen_plan->bind, TuningFor(p), p.port_min, p.port_max);
    listening(SourceReady{listen_plan->advertise, listener.port()});
    AcceptStreams(listener, p, kAcceptDeadline, kAcceptIdle, add,
                  [&state] { return state.failed(); });
    if (auto e = state.error()) throw *e;
  } else {
    for (auto& c : ConnectStreams(start.addresses, start.port, p, warn)) add(std::move(c));
  }
  MutexLock lock(sockets_mutex);
  connected = sockets.size();
}

void SourceSession::Impl::AddStream(AuthenticatedStream c) {
  MutexLock lock(sockets_mutex);
  const std::uint16_t index = c.index;
  sockets.push_back(std::make_unique<DataSocket>(std::move(c)));
  sockets.back()->LimitUnsent(2 * start.params.block_size);
  stream_index.push_back(index);
}

/// Enough buffers for every stream to have one in flight, the reader to run
/// ahead, and the hasher to lag a little without stalling the senders.
void SourceSession::Impl::MakePool() {
  std::size_t spare = hashing() ? 8 : 4;
  auto made = std::make_unique<BufferPool>(start.params.block_size, 2 * connected + spare);
  MutexLock lock(park_mutex);
  spare_buffers = spare;
  pool = std::move(made);
}

/// The abort hook: wakes every thread wherever it waits.
void SourceSession::Impl::OnAbort() {
  std::uint64_t one = 1;
  (void)!::write(abort_event.get(), &one, sizeof one);
  send_queue.Abort();
  hash_queue.Abort();
  repair_queue.Abort();
  park_cv.notify_all();
  if (pacer) pacer->Abort();
  Pool().Close();
  if (limiter) limiter->Abort();
  if (feed) feed->Abort();
  MutexLock lock(sockets_mutex);
  for (auto& sock : sockets) sock->Shutdown();
}

/// The reader, the hasher (-E) and one sender per stream, until the sink has
/// everything or the transfer failed.
void SourceSession::Impl::RunThreads(TransferState& state) {
  std::vector<std::thread> producers;
  producers.emplace_back(state.Guarded([&] { ReadAll(state); }));
  if (hashing()) producers.emplace_back(state.Guarded([&] { HashAll(state); }));
  std::vector<DataSocket*> streams;
  {
    MutexLock lock(sockets_mutex);
    for (auto& sock : sockets) streams.push_back(sock.get());
  }
  std::vector<std::thread> senders;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    DataSocket* raw = streams[i];
    senders.emplace_back(state.Guarded([&, raw, i] { SendAll(*raw, i, state); }));
  }
  for (auto& t : senders) t.join();
  // The sink has everything (or the transfer failed): no more repair passes.
  repair_queue.Close();
  send_queue.Abort();
  for (auto& t : producers) t.join();
}

void SourceSession::Follow(std::unique_ptr<FollowFeed> feed) { impl_->feed = std::move(feed); }

void SourceSession::ListenInstead(ListenPlan plan,
                                  std::function<void(const SourceReady&)> listening) {
  impl_->listen_plan = std::move(plan);
  impl_->listening = std::move(listening);
}

void SourceSession::SetActiveStreams(int count) {
  Impl& s = *impl_;
  {
    MutexLock lock(s.park_mutex);
    int connected;
    {
      MutexLock sockets_lock(s.sockets_mutex);
      connected = static_cast<int>(s.sockets.size());
    }
    s.active = std::clamp(count, 1, std::max(connected, 1));
    // Parked streams need no read-ahead: without this the reader fills buffers for all
    // 64 streams -s auto connects (130 MiB at 1 MiB blocks) while 2-4 send.
    if (s.pool) s.pool->SetLimit(2 * static_cast<std::size_t>(s.active) + s.spare_buffers);
  }
  s.park_cv.notify_all();
}

int SourceSession::active_streams() const {
  MutexLock lock(impl_->park_mutex);
  return impl_->active;
}

void SourceSession::SetPace(std::uint64_t bytes_per_second) {
  Impl& s = *impl_;
  if (!s.pacer) return;
  s.pacer->SetRate(bytes_per_second);
  // The bucket keeps the total; the kernel spreads each stream's share over time.
  const auto active = static_cast<std::uint64_t>(std::max(1, active_streams()));
  const std::uint64_t per_stream = (bytes_per_second + active - 1) / active;
  MutexLock lock(s.sockets_mutex);
  for (const auto& socket : s.sockets) socket->PaceAt(per_stream);
}

double SourceSession::InputWaitSeconds() const {
  return static_cast<double>(impl_->feed_wait_ns.load(std::memory_order_relaxed)) / 1e9;
}

std::vector<StreamSample> SourceSession::StreamSamples() const {
  const Impl& s = *impl_;
  MutexLock lock(s.sockets_mutex);
  std::vector<StreamSample> out;
  out.reserve(s.sockets.size());
  for (std::size_t i = 0; i < s.sockets.size(); ++i) {
    StreamSample sample;
    sample.index = s.stream_index[i];
    sample.bytes = s.stream_bytes[i].load(std::memory_order_relaxed);
    if (std::optional<TcpSample> tcp = SampleTcpInfo(s.sockets[i]->fd())) {
      sample.rtt_us = tcp->rtt_us;
      sample.min_rtt_us = tcp->min_rtt_us;
      sample.cwnd = tcp->cwnd;
      sample.retrans = tcp->total_retrans;
      sample.delivery_rate = tcp->delivery_rate_Bps;
      sample.acked = tcp->bytes_acked;
    }
    out.push_back(sample);
  }
  return out;
}

}  // namespace braid
