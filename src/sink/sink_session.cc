#include "sink/sink_session.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "resume/checkpointer.h"
#include "resume/journal_files.h"
#include "security/crypto/payload_checksum.h"
#include "session/blocking_queue.h"
#include "session/buffer_pool.h"
#include "session/stream_setup.h"
#include "sink/ordered_writer.h"
#include "sink/sink_files.h"
#include "sink/sink_resume.h"
#include "sink/verify_feed.h"
#include "transport/block_codec.h"
#include "transport/data_listener.h"
#include "transport/data_socket.h"

namespace braid {
namespace {

/// How long the sink waits for the source's streams to connect.
constexpr auto kAcceptDeadline = std::chrono::seconds(120);
/// Blocks an ordered target may hold out of order, beyond one per stream.
constexpr std::size_t kReorderBlocks = 16;
constexpr std::size_t kHashChunk = 1u << 20;
/// -E: what the verifier may hold of the receivers' blocks (and so how far
/// they may run ahead of it while it is busy).
constexpr std::size_t kVerifyHeldBytes = 16u << 20;
/// Files made durable by one sync at most.
constexpr std::size_t kCommitBatch = 1024;
/// How often written blocks are synced and journaled: what a crash of the sink
/// can cost a re-run (docs/resume.md has the measured price). At high rates
/// the byte bound comes first.
constexpr auto kCheckpointInterval = std::chrono::milliseconds(250);
constexpr std::uint64_t kCheckpointBytes = 64u << 20;
/// A stream that dies because the whole transfer is failing dies moments
/// before the agent's abort arrives; only a death without one is news.
constexpr auto kEchoWindow = std::chrono::milliseconds(500);
/// Repair passes that deliver nothing new before the sink gives up on the source.
constexpr int kMaxIdlePasses = 3;

/// /dev/null takes blocks in any order: a memory-to-memory test (iperf's
/// use) should not pay for ordering it does not need.
bool IsNullDevice(const struct stat& st, bool exists) {
  return exists && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

bool IsStreamTarget(const std::string& target, const struct stat& st, bool exists) {
  if (target == "-") return true;
  return exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

/// The checkpointer's file-system steps on the real partial files and journals.
class SinkCheckpointIo : public CheckpointIo {
 public:
  SinkCheckpointIo(SinkFiles& files, JournalFiles& journals) : files_(files), journals_(journals) {}
  void SyncData(std::uint32_t file) override { files_.SyncPartial(file); }
  void AppendJournal(std::uint32_t file, bool create,
                     std::span<const std::uint8_t> bytes) override {
    journals_.Append(file, create, bytes);
  }

 private:
  SinkFiles& files_;
  JournalFiles& journals_;
};

bool IsPeerLost(const BraidError& e) { return e.code() == ErrorCode::kPeerLost; }

}  // namespace

struct SinkSession::Impl {
  SinkOpen open;
  std::string host;
  std::vector<FileEntry> entries;
  std::unique_ptr<SinkFiles> files;
  std::unique_ptr<BufferPool> pool;
  std::unique_ptr<OrderedWriter> ordered;
  /// With -o to files: where each file starts when the files are laid end to
  /// end, so one window orders blocks across all of them. (start, id) pairs.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order_starts;
  std::vector<std::uint64_t> order_base;
  UniqueFd stream_fd;
  bool discard = false;
  std::vector<std::string> advertise;     ///< addresses to tell the source (empty: the bound one)
  std::optional<SinkConnect> connect_to;  ///< -z: where the source listens
  /// -E onto an ordered target: the digest of what was written, in order.
  std::optional<FileDigest> stream_digest;
  std::unique_ptr<DataListener> listener;
  BlockingQueue<std::uint32_t> commit_queue;
  std::vector<std::optional<DigestValue>> sink_digest;  ///< -E: of each file as written
  /// -E to files: written blocks, from the receivers to the verifier.
  std::unique_ptr<VerifyFeed> verify_feed;

  std::unique_ptr<JournalFiles> journals;
  std::unique_ptr<SinkCheckpointIo> checkpoint_io;
  std::unique_ptr<Checkpointer> checkpointer;
  std::function<void(const std::string&)> warn;
  std::atomic<std::uint64_t>* state_bytes = nullptr;

  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::unique_ptr<DataSocket>> sockets;
  std::vector<std::thread> receivers;
  std::uint32_t announced_streams = 0;
  std::size_t committed = 0;
  // A pass ends when every live stream has sent its pass end; the sink then
  // decides: done (close the streams), or ask again for what is missing.
  std::size_t at_pass_end = 0;
  std::size_t dead_streams = 0;
  std::uint64_t pass = 0;           ///< decisions taken
  bool all_received = false;        ///< the last decision was "done"
  std::vector<ResendRange> resend;  ///< the last decision's request
  std::uint64_t bytes_at_last_pass = 0;
  int idle_passes = 0;
  bool checkpoints_done = false;  ///< guarded by checkpoint_mutex
  std::mutex checkpoint_mutex;
  std::condition_variable checkpoint_cv;

  std::string Where(const std::string& path) const {
    return host.empty() ? path : host + ":" + path;
  }
  void Receive(DataSocket& socket, TransferState& state);
  void ReceiveFrames(DataSocket& socket, TransferState& state);
  /// Called with `mutex` held whenever a stream reaches its pass end or dies.
  /// Returns the error to fail the transfer with (after releasing `mutex`:
  /// the abort hooks take it).
  std::optional<BraidError> MaybeDecide();
  /// Waits for the decision on the pass this stream just ended; false: done.
  bool AwaitDecision(DataSocket& socket, std::unique_lock<std::mutex>& lock, TransferState& state);
  /// Writes a block unless it is already there; true if it wrote it.
  bool RecordWrite(std::uint32_t id, std::uint64_t offset, const std::uint8_t* data,
                   std::uint32_t length, std::optional<std::uint64_t> checksum);
  void CheckpointLoop(TransferState& state);
  /// After a failure: journal what is on disk, keep or remove the partial files.
  std::optional<Kept> KeepPartials();
  void ReceiveData(DataSocket& socket, const FrameHeader& h, std::vector<std::uint8_t>& scratch,
                   TransferState& state);
  void Verify(TransferState& state);
  /// One file's digest, hashed as its contiguous prefix grows; nullopt once the transfer failed.
  std::optional<DigestValue> VerifyFile(const SinkFile& f, std::vector<std::uint8_t>& chunk,
                                        TransferState& state);
  void CommitAll(const SinkCallbacks& callbacks, TransferState& state);
  bool hashing() const { return open.params.hash != HashAlgorithm::kNone; }
  /// The payload of a file-end frame: the source's digest, checked against -E.
  std::optional<DigestValue> ReadFileEnd(DataSocket& socket, const FrameHeader& h);
  /// Checks the digests of a complete file; throws on a mismatch.
  FileDone Verdict(std::uint32_t id);
  bool Finished(std::size_t data_files) const { return committed == data_files && all_received; }
  std::size_t live_streams() const { return sockets.size() - dead_streams; }
};

SinkSession::SinkSession(std::vector<FileEntry> entries, SinkOpen open, std::string host)
    : impl_(std::make_unique<Impl>()) {
  impl_->entries = std::move(entries);
  impl_->open = std::move(open);
  impl_->host = std::move(host);
}

SinkSession::~SinkSession() = default;

void SinkSession::Advertise(std::vector<std::string> addresses) {
  impl_->advertise = std::move(addresses);
}

void SinkSession::Connect(const SinkConnect& where) {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->connect_to = where;
  }
  impl_->cv.notify_all();
}

void SinkSession::Impl::ReceiveData(DataSocket& socket, const FrameHeader& h,
                                    std::vector<std::uint8_t>& scratch, TransferState& state) {
  bool compressed = (h.flags & kFlagCompressed) != 0;
  if (compressed && open.params.compress_level <= 0) {
    throw BraidError(ErrorCode::kProtocol, "protocol error: compressed block not negotiated");
  }
  files->CheckBlock(h.file_id, h.offset, h.raw_length);
  std::uint64_t position = order_base.empty() ? h.offset : order_base[h.file_id] + h.offset;
  if (ordered && !ordered->WaitForRoom(position)) return;
  BufferRef buffer = pool->Acquire();
  if (!buffer) return;
  // A compressed payload lands in the stream's scratch space and is inflated
  // into the block buffer; a raw one lands in the block buffer directly.
  std::uint8_t* wire = compressed ? scratch.data() : buffer->data();
  socket.ReadExact(wire, h.length);
  if (PayloadChecksum({wire, h.length}) != h.checksum) {
    throw BraidError(ErrorCode::kIntegrity, "block checksum mismatch from " + socket.peer() +
                                                " for " + Where(files->file(h.file_id).final_path) +
                                                " at offset " + std::to_string(h.offset));
  }
  if (compressed) InflateBlock({wire, h.length}, {buffer->data(), h.raw_length});
  state.wire_bytes.fetch_add(h.length);
  if (discard) {
    state.bytes.fetch_add(h.raw_length);
    files->RecordStreamed(h.file_id, h.offset, h.raw_length);
    return;
  }
  if (ordered) {
    ordered->Submit(position, std::move(buffer), h.raw_length);
    return;
  }
  std::optional<std::uint64_t> raw_checksum;
  if (!compressed) raw_checksum = h.checksum;  // the checksum of the bytes on disk, then
  if (!verify_feed) {
    RecordWrite(h.file_id, h.offset, buffer->data(), h.raw_length, raw_checksum);
    return;
  }
  verify_feed->Announce(h.file_id, h.offset);
  bool written = false;
  try {
    written = RecordWrite(h.file_id, h.offset, buffer->data(), h.raw_length, raw_checksum);
  } catch (...) {
    verify_feed->Withdraw(h.file_id, h.offset);
    throw;
  }
  if (!written) {
    verify_feed->Withdraw(h.file_id, h.offset);
    return;
  }
  verify_feed->Offer({h.file_id, h.offset, h.raw_length, std::move(buffer)});
}

bool SinkSession::Impl::RecordWrite(std::uint32_t id, std::uint64_t offset,
                                    const std::uint8_t* data, std::uint32_t length,
                                    std::optional<std::uint64_t> checksum) {
  if (!files->WriteBlock(id, offset, data, length)) return false;
  state_bytes->fetch_add(length);
  // A nameless file leaves nothing to resume from, so nothing to journal.
  if (files->file(id).anonymous) return true;
  if (!checksum) checksum = PayloadChecksum({data, length});
  if (checkpointer->Written(id, JournalRecord{offset, length, *checksum}) >= kCheckpointBytes) {
    checkpoint_cv.notify_one();
  }
  return true;
}

void SinkSession::Impl::Receive(DataSocket& socket, TransferState& state) {
  try {
    ReceiveFrames(socket, state);
  } catch (const BraidError& e) {
    // A stream that dies is not the end of the copy: the others finish the
    // pass, and the sink asks again for what this one lost in flight.
    if (!IsPeerLost(e) || state.FailsWithin(kEchoWindow)) throw;
    std::unique_lock lock(mutex);
    if (all_received) return;  // it died after the last pass: no loss
    ++dead_streams;
    std::size_t left = live_streams();
    if (left == 0) {
      throw BraidError(ErrorCode::kPeerLost,
                       "every data stream was lost; the last: " + std::string(e.what()));
    }
    warn(std::string(e.what()) + "; continuing on " + std::to_string(left) + " stream" +
         (left == 1 ? "" : "s"));
    std::optional<BraidError> failure = MaybeDecide();
    lock.unlock();
    if (failure) state.Fail(*failure);
  }
}

void SinkSession::Impl::ReceiveFrames(DataSocket& socket, TransferState& state) {
  std::uint32_t max_payload = open.params.block_size;
  std::vector<std::uint8_t> scratch(open.params.compress_level > 0 ? max_payload : 0);
  while (!state.failed()) {
    FrameHeaderBytes head{};
    if (!socket.ReadExact(head.data(), head.size(), /*eof_ok=*/true)) {
      throw BraidError(ErrorCode::kPeerLost,
                       "data stream from " + socket.peer() + " closed before the transfer ended");
    }
    FrameHeader h = DecodeFrameHeader(head, max_payload);
    switch (h.type) {
      case FrameType::kData:
        ReceiveData(socket, h, scratch, state);
        break;
      case FrameType::kFileEnd: {
        std::optional<DigestValue> digest = ReadFileEnd(socket, h);
        files->EndFile(h.file_id, h.offset, digest);
        break;
      }
      case FrameType::kPassEnd: {
        std::unique_lock lock(mutex);
        if (announced_streams != 0 && announced_streams != h.file_id) {
          throw BraidError(ErrorCode::kProtocol, "protocol error: streams disagree on their count");
        }
        announced_streams = h.file_id;
        if (!AwaitDecision(socket, lock, state)) return;
        break;
      }
      case FrameType::kResend:
        throw BraidError(ErrorCode::kProtocol, "protocol error: resend request from the source");
    }
  }
}

bool SinkSession::Impl::AwaitDecision(DataSocket& socket, std::unique_lock<std::mutex>& lock,
                                      TransferState& state) {
  ++at_pass_end;
  std::uint64_t my_pass = pass;
  if (std::optional<BraidError> failure = MaybeDecide()) {
    lock.unlock();
    state.Fail(*failure);
    return false;
  }
  cv.wait(lock, [&] { return pass != my_pass || state.failed(); });
  if (state.failed()) return false;
  if (all_received) {
    lock.unlock();
    ::shutdown(socket.fd(), SHUT_WR);
    return false;
  }
  std::vector<std::uint8_t> payload = EncodeResendList(resend);
  std::uint64_t number = pass;
  lock.unlock();
  socket.SendFrame(FrameHeader{.type = FrameType::kResend,
                               .length = static_cast<std::uint32_t>(payload.size()),
                               .offset = number,
                               .checksum = PayloadChecksum(payload)},
                   payload);
  lock.lock();
  return true;
}

std::optional<BraidError> SinkSession::Impl::MaybeDecide() {
  std::size_t live = live_streams();
  if (live == 0 || at_pass_end < live || at_pass_end + dead_streams < announced_streams) {
    return std::nullopt;
  }
  at_pass_end = 0;
  resend.clear();
  std::vector<std::uint32_t> unrepairable;
  // Ordered targets write as blocks arrive in order, so what they hold back is
  // not yet in the file table; without a lost stream, nothing is missing.
  if (!ordered || dead_streams > 0) {
    std::size_t limit = open.params.block_size / kResendRangeSize;
    for (const auto& [id, offset, length] : files->Missing(limit, unrepairable)) {
      resend.push_back({id, offset, length});
    }
  }
  if (ordered && dead_streams > 0) {
    return BraidError(ErrorCode::kPeerLost,
                      "a data stream was lost, and data written in order cannot be sent "
                      "again out of order");
  }
  if (!unrepairable.empty()) {
    return BraidError(ErrorCode::kPeerLost,
                      "data of " + Where(files->file(unrepairable.front()).final_path) +
                          " was lost with a data stream, and a stream source cannot be "
                          "read again");
  }
  std::uint64_t received = files->bytes_received();
  idle_passes = (pass > 0 && received == bytes_at_last_pass) ? idle_passes + 1 : 0;
  bytes_at_last_pass = received;
  if (!resend.empty() && idle_passes >= kMaxIdlePasses) {
    return BraidError(ErrorCode::kProtocol,
                      "protocol error: the source does not send the data asked for again");
  }
  all_received = resend.empty();
  if (!all_received) {
    warn("asking the source again for " + std::to_string(resend.size()) + " range" +
         (resend.size() == 1 ? "" : "s") + " lost in flight");
  }
  ++pass;
  cv.notify_all();
  return std::nullopt;
}

std::optional<DigestValue> SinkSession::Impl::ReadFileEnd(DataSocket& socket,
                                                          const FrameHeader& h) {
  // The decoder bounded the length by the longest digest; it must also be this
  // transfer's algorithm's, and present exactly when a hash was asked for.
  bool flagged = (h.flags & kFlagHasDigest) != 0;
  std::size_t want = DigestSize(open.params.hash);
  if (flagged != hashing() || (flagged && h.length != want)) {
    throw BraidError(ErrorCode::kProtocol,
                     "protocol error: file end from " + socket.peer() + " carries a digest of " +
                         std::to_string(h.length) + " bytes; " +
                         std::string(HashName(open.params.hash)) + " has " + std::to_string(want));
  }
  std::array<std::uint8_t, kMaxDigestSize> bytes{};
  if (h.length > 0) socket.ReadExact(bytes.data(), h.length);
  if (PayloadChecksum({bytes.data(), h.length}) != h.checksum) {
    throw BraidError(ErrorCode::kIntegrity, "file-end checksum mismatch from " + socket.peer());
  }
  if (!flagged) return std::nullopt;
  return MakeDigestValue({bytes.data(), h.length});
}

void SinkSession::Impl::Verify(TransferState& state) {
  std::vector<std::uint8_t> chunk(kHashChunk);
  for (const auto& f : files->files()) {
    if (f.entry.kind != FileKind::kRegular && f.entry.kind != FileKind::kStream) continue;
    if (f.in_place) continue;
    std::optional<DigestValue> digest = VerifyFile(f, chunk, state);
    if (!digest) return;
    sink_digest[f.entry.id] = *digest;
    commit_queue.Push(f.entry.id);
  }
  verify_feed->Stop();  // later repair blocks need no hashing: do not hold them up
}

std::optional<DigestValue> SinkSession::Impl::VerifyFile(const SinkFile& f,
                                                         std::vector<std::uint8_t>& chunk,
                                                         TransferState& state) {
  std::uint32_t id = f.entry.id;
  int fd = files->OpenPartial(id);
  FileDigest digest(open.params.hash);
  const std::uint64_t block = open.params.block_size;
  std::uint64_t hashed = 0;
  for (;;) {
    verify_feed->SetBusy(false);
    std::optional<std::uint64_t> prefix = files->WaitForPrefix(id, hashed);
    if (!prefix || state.failed()) return std::nullopt;
    // The wait returns no new bytes only once the file is complete (it looks
    // under SinkFiles' lock; reading f.complete here raced with receivers).
    if (*prefix == hashed) break;
    verify_feed->SetBusy(true);
    while (hashed < *prefix) {
      std::uint64_t n = 0;
      if (std::optional<VerifyFeed::Block> b = verify_feed->Take(id, hashed)) {
        // Written from this very buffer, and inside the prefix (it was recorded first).
        digest.Update(b->buffer->data(), b->length);
        n = b->length;
      } else {
        // Up to the next block boundary at most, so the block after it can come from the feed.
        std::uint64_t want =
            std::min({std::uint64_t{chunk.size()}, *prefix - hashed, block - hashed % block});
        ssize_t got =
            ::pread(fd, chunk.data(), static_cast<std::size_t>(want), static_cast<off_t>(hashed));
        if (got <= 0) {
          throw BraidError(ErrorCode::kTargetUnwritable,
                           DescribeErrno(host, f.partial_path, got < 0 ? errno : EIO));
        }
        digest.Update(chunk.data(), static_cast<std::size_t>(got));
        n = static_cast<std::uint64_t>(got);
      }
      hashed += n;
      verify_feed->Hashed(n);
    }
  }
  return digest.Finish();
}

FileDone SinkSession::Impl::Verdict(std::uint32_t id) {
  SinkFile& f = files->file(id);
  FileDone done;
  done.id = id;
  done.size = f.end_size.value_or(0);
  done.final_path = f.final_path;
  if (!hashing()) return done;
  std::string name(HashDisplayName(open.params.hash));
  if (!f.source_digest) {
    throw BraidError(ErrorCode::kProtocol,
                     "protocol error: source sent no " + name + " for " + Where(f.final_path));
  }
  if (!sink_digest[id]) std::abort();  // queued for commit before it was hashed: a bug
  done.hash = open.params.hash;
  done.source_digest = *f.source_digest;
  done.sink_digest = *sink_digest[id];
  if (done.source_digest != done.sink_digest) {
    throw BraidError(ErrorCode::kIntegrity, name + " mismatch for " + Where(f.final_path) +
                                                ": source " + ToHex(done.source_digest) +
                                                ", copy " + ToHex(done.sink_digest));
  }
  return done;
}

void SinkSession::Impl::CommitAll(const SinkCallbacks& callbacks, TransferState& state) {
  while (std::optional<std::uint32_t> first = commit_queue.Pop()) {
    // Everything already complete goes in one batch, so a tree of small files
    // costs one file-system sync per batch rather than one per file.
    std::vector<std::uint32_t> batch{*first};
    while (batch.size() < kCommitBatch) {
      std::optional<std::uint32_t> more = commit_queue.PopFor(std::chrono::seconds(0));
      if (!more) break;
      batch.push_back(*more);
    }
    std::vector<FileDone> verdicts;
    for (std::uint32_t id : batch) {
      verdicts.push_back(Verdict(id));
      checkpointer->Forget(id);
    }
    files->MakeDurable(batch);
    for (const FileDone& done : verdicts) {
      files->Commit(done.id, open.force);
      // The file is whole under its final name; its journal has nothing left to say.
      journals->Remove(done.id);
    }
    // -y dd: the names are on disk before the agent hears the files are done.
    files->SyncDirectories(batch);
    callbacks.files_done(verdicts);
    // Progress and Done report them; the agent's stall watch takes it as progress.
    state.files_done.fetch_add(verdicts.size());
    {
      std::lock_guard lock(mutex);
      committed += verdicts.size();
    }
    cv.notify_all();
  }
}

void SinkSession::Run(const SinkCallbacks& callbacks) {
  Impl& s = *impl_;
  const TransferParams& p = s.open.params;
  // A congestion control this kernel lacks fails here, naming this host, before any
  // file is touched.
  CheckCongestionControl(p.congestion_control, s.host);
  struct stat st {};
  bool exists = s.open.target != "-" && ::stat(s.open.target.c_str(), &st) == 0;
  TargetInfo info{exists, exists && S_ISDIR(st.st_mode), IsStreamTarget(s.open.target, st, exists)};
  // Before anything is created: a list that would lead the sink through a link is refused.
  CheckListShape(s.entries);
  TargetPlan plan = PlanTarget(s.open.target, info, s.open.top_count, s.entries, s.host);
  s.files = std::make_unique<SinkFiles>(s.entries, plan, s.host, s.open.preserve);
  s.files->SetFsync(s.open.fsync);
  s.warn = callbacks.warn;
  s.state_bytes = &state_.bytes;
  s.journals = std::make_unique<JournalFiles>(s.host);
  s.checkpoint_io = std::make_unique<SinkCheckpointIo>(*s.files, *s.journals);
  s.checkpointer = std::make_unique<Checkpointer>(*s.checkpoint_io);
  s.files->FindNewDirectories();
  ResumeSummary resumed =
      PrepareResume(*s.files, *s.journals, *s.checkpointer, s.open, s.host, callbacks.warn);
  s.files->Prepare(s.open.force);
  s.sink_digest.resize(s.entries.size());
  if (s.hashing()) s.stream_digest.emplace(p.hash);
  std::size_t data_files = s.files->data_file_count();

  std::size_t buffers = 2 * p.streams + 2;
  s.discard = plan.mode == TargetPlan::Mode::kStream && !s.hashing() && IsNullDevice(st, exists);
  if (plan.mode == TargetPlan::Mode::kStream && !s.discard) {
    if (s.open.target == "-") {
      s.stream_fd.Reset(::dup(STDOUT_FILENO));
    } else {
      s.stream_fd.Reset(::open(s.open.target.c_str(), O_WRONLY | O_CLOEXEC));
    }
    if (!s.stream_fd.valid()) {
      throw BraidError(ErrorCodeForTargetErrno(errno), DescribeErrno(s.host, s.open.target, errno));
    }
    std::uint32_t id = 0;
    while (s.entries[id].kind != FileKind::kRegular && s.entries[id].kind != FileKind::kStream)
      ++id;
    buffers = p.streams + kReorderBlocks + 1;
    std::uint64_t window = std::uint64_t{kReorderBlocks} * p.block_size;
    s.ordered = std::make_unique<OrderedWriter>(
        window,
        [this, &s, id](std::uint64_t offset, const std::uint8_t* data, std::uint32_t length) {
          std::uint32_t done = 0;
          while (done < length) {
            ssize_t n = ::write(s.stream_fd.get(), data + done, length - done);
            if (n < 0) {
              if (errno == EINTR) continue;
              throw BraidError(ErrorCodeForTargetErrno(errno),
                               DescribeErrno(s.host, s.open.target, errno));
            }
            done += static_cast<std::uint32_t>(n);
          }
          if (s.stream_digest) s.stream_digest->Update(data, length);
          state_.bytes.fetch_add(length);
          s.files->RecordStreamed(id, offset, length);
        });
  } else if (p.ordered) {
    s.order_base.assign(s.entries.size(), 0);
    std::uint64_t next = 0;
    for (const auto& e : s.entries) {
      if (e.kind != FileKind::kRegular && e.kind != FileKind::kStream) continue;
      s.order_base[e.id] = next;
      s.order_starts.emplace_back(next, e.id);
      // Only a lone stdin source has no size; it is then the only file.
      next += e.size == kUnknownSize ? 0 : e.size;
    }
    buffers = p.streams + kReorderBlocks + 1;
    std::uint64_t window = std::uint64_t{kReorderBlocks} * p.block_size;
    s.ordered = std::make_unique<OrderedWriter>(
        window, [&s](std::uint64_t position, const std::uint8_t* data, std::uint32_t length) {
          auto it = std::upper_bound(s.order_starts.begin(), s.order_starts.end(),
                                     std::make_pair(position, UINT32_MAX));
          std::uint32_t id = std::prev(it)->second;
          s.RecordWrite(id, position - s.order_base[id], data, length, std::nullopt);
        });
  }
  std::size_t verify_held = 0;
  if (s.hashing() && plan.mode != TargetPlan::Mode::kStream && !p.ordered) {
    // Blocks arrive out of order by what the streams hold in flight; the
    // verifier keeps up to 16 MiB of them (at least 2 blocks), in buffers of its own.
    verify_held = std::clamp<std::size_t>(kVerifyHeldBytes / p.block_size, 2, 16);
    buffers += verify_held;
  }
  s.pool = std::make_unique<BufferPool>(p.block_size, buffers);

  bool stream_target = plan.mode == TargetPlan::Mode::kStream;
  bool ordered_digest = s.hashing() && stream_target;
  if (s.hashing() && !stream_target) {
    // Receivers hand a block over before they wait, so the feed fills past the
    // lag it allows: half of it is room for those.
    std::uint64_t ahead = std::max<std::uint64_t>(1, verify_held / 2) * p.block_size;
    s.verify_feed = std::make_unique<VerifyFeed>(verify_held, ahead);
  }
  s.files->OnComplete([&s, ordered_digest](std::uint32_t id) {
    if (ordered_digest) s.sink_digest[id] = s.stream_digest->Finish();
    if (!s.hashing() || ordered_digest) s.commit_queue.Push(id);
  });

  if (!p.reverse) {
    s.listener = std::make_unique<DataListener>(
        s.open.listen_address.empty() ? "127.0.0.1" : s.open.listen_address, TuningFor(p),
        p.port_min, p.port_max);
  }
  state_.OnAbort([&s] {
    s.files->Abort();
    s.pool->Close();
    if (s.ordered) s.ordered->Abort();
    s.commit_queue.Abort();
    if (s.verify_feed) s.verify_feed->Stop();
    if (s.listener) s.listener->Stop();
    std::lock_guard lock(s.mutex);
    for (auto& sock : s.sockets) sock->Shutdown();
    s.cv.notify_all();
  });

  SinkReady ready;
  if (s.listener) {
    ready.addresses =
        s.advertise.empty() ? std::vector<std::string>{s.listener->address()} : s.advertise;
    ready.port = s.listener->port();
  }
  ready.resume = std::move(resumed.entries);
  ready.kept_bytes = resumed.kept_bytes;
  ready.failed_blocks = resumed.failed_blocks;
  callbacks.ready(ready);

  auto add = [&](AuthenticatedStream stream) {
    std::lock_guard lock(s.mutex);
    if (state_.failed()) return;
    s.sockets.push_back(std::make_unique<DataSocket>(std::move(stream.fd), stream.peer));
    DataSocket* raw = s.sockets.back().get();
    state_.streams = static_cast<std::uint16_t>(s.sockets.size());
    s.receivers.emplace_back(state_.Guarded([&, raw] { s.Receive(*raw, state_); }));
  };
  std::thread acceptor(state_.Guarded([&] {
    if (s.listener) {
      s.listener->Run(p.secret, p.session, p.streams, kAcceptDeadline, add);
      return;
    }
    // -z: the source listens; the agent passes on where (Connect()).
    std::optional<SinkConnect> where;
    {
      std::unique_lock lock(s.mutex);
      s.cv.wait(lock, [&] { return s.connect_to.has_value() || state_.failed(); });
      where = s.connect_to;
    }
    if (!where) return;
    auto warn = [&](const std::string& w) { callbacks.warn(w); };
    for (auto& c : ConnectStreams(where->addresses, where->port, p, warn)) {
      add(std::move(c));
    }
  }));
  std::thread committer(state_.Guarded([&] { s.CommitAll(callbacks, state_); }));
  std::thread checkpoints(state_.Guarded([&] { s.CheckpointLoop(state_); }));
  std::thread verifier;
  if (s.verify_feed) verifier = std::thread(state_.Guarded([&] { s.Verify(state_); }));

  {
    std::unique_lock lock(s.mutex);
    s.cv.wait(lock, [&] { return state_.failed() || s.Finished(data_files); });
  }
  if (s.listener) s.listener->Stop();
  s.cv.notify_all();
  acceptor.join();
  if (!state_.failed()) s.commit_queue.Close();
  for (auto& t : s.receivers) t.join();
  committer.join();
  if (verifier.joinable()) verifier.join();
  {
    std::lock_guard lock(s.checkpoint_mutex);
    s.checkpoints_done = true;
  }
  s.checkpoint_cv.notify_all();
  checkpoints.join();
  if (auto e = state_.error()) {
    if (std::optional<Kept> kept = s.KeepPartials(); kept && callbacks.kept) callbacks.kept(*kept);
    throw *e;
  }
  s.files->FinishDirectories();
}

void SinkSession::Impl::CheckpointLoop(TransferState& state) {
  // -y none: no sync while the copy runs, so no checkpoint either (a journal
  // record needs its block synced). Only a failure journals, after its sync
  // (KeepPartials); a crash of the sink leaves no journal, and the re-run
  // copies those files from the start.
  if (open.fsync == FsyncPolicy::kNone) return;
  std::unique_lock lock(checkpoint_mutex);
  while (!checkpoints_done && !state.failed()) {
    checkpoint_cv.wait_for(lock, kCheckpointInterval);
    lock.unlock();
    checkpointer->Run();
    lock.lock();
  }
}

std::optional<Kept> SinkSession::Impl::KeepPartials() {
  if (files->plan().mode == TargetPlan::Mode::kStream) return std::nullopt;
  if (open.keep_partial) {
    // What reached the disk since the last checkpoint counts too. A failing
    // disk may refuse this; the journal then keeps what it had.
    try {
      checkpointer->Run();
    } catch (const BraidError&) {
    }
  }
  Kept kept;
  files->RemovePartials([&](std::uint32_t id) {
    bool keep =
        open.keep_partial && checkpointer->has_journal(id) && checkpointer->journaled_bytes(id) > 0;
    if (keep) {
      kept.bytes += checkpointer->journaled_bytes(id);
      ++kept.partial_files;
    } else {
      journals->Remove(id);
    }
    return keep;
  });
  return kept;
}

}  // namespace braid
