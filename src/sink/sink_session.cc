#include "sink/sink_session.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <thread>

#include "braid/direct_io.h"
#include "braid/mutex.h"
#include "security/crypto/payload_checksum.h"
#include "session/buffer_pool.h"
#include "session/descriptor_limit.h"
#include "session/shell_command.h"
#include "session/stream_loss.h"
#include "session/stream_setup.h"
#include "sink/block_writer.h"
#include "sink/commit_batcher.h"
#include "sink/file_verifier.h"
#include "sink/forward_feed.h"
#include "sink/open_file_budget.h"
#include "sink/pass_coordinator.h"
#include "sink/sink_checkpoints.h"
#include "sink/sink_files.h"
#include "sink/sink_resume.h"
#include "sink/stream_receiver.h"
#include "sink/verify_feed.h"
#include "transport/data_listener.h"
#include "transport/data_socket.h"
#include "transport/frame_stream.h"

namespace braid {
namespace {

/// How long the sink waits for the source's streams to connect.
constexpr auto kAcceptDeadline = std::chrono::seconds(120);
/// Blocks an ordered target may hold out of order, beyond one per stream.
constexpr std::size_t kReorderBlocks = 16;
/// -E: what the verifier may hold of the receivers' blocks (and so how far
/// they may run ahead of it while it is busy).
constexpr std::size_t kVerifyHeldBytes = 16u << 20;

bool IsNullDevice(const struct stat& st, bool exists) {
  return exists && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

bool IsStreamTarget(const std::string& target, const struct stat& st, bool exists) {
  if (target == "-") return true;
  return exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
}

/// What PrepareTarget found.
struct PreparedTarget {
  ResumeSummary resumed;
  bool null_device = false;  ///< the target is /dev/null
};

}  // namespace

struct SinkSession::Impl {
  /// Set by the constructor and Advertise, before Run starts any thread; read-only after.
  SinkOpen open;
  std::string host;
  PackedList entries;                  ///< until PrepareTarget moves it into `files`
  std::vector<std::string> advertise;  ///< addresses to tell the source (empty: the bound one)

  /// Made by Run's set-up steps before any thread starts and never replaced, so read
  /// without a lock; the objects they point to lock themselves.
  std::function<void(const std::string&)> warn;
  std::unique_ptr<SinkFiles> files;
  /// A hop of a chain (SinkOpen's `forward`): what the following sources read; else null.
  /// After `files`, so it goes first.
  std::unique_ptr<ForwardFeed> feed;
  std::unique_ptr<SinkCheckpoints> checkpoints;
  std::unique_ptr<BlockWriter> writer;
  std::unique_ptr<VerifyFeed> verify_feed;  ///< -E to files: written blocks to the verifier
  std::unique_ptr<BufferPool> pool;
  std::unique_ptr<CommitBatcher> committer;
  std::unique_ptr<DataListener> listener;  ///< null with -z (the source listens)
  /// -N o: the command the data is written to; finished by the one file's completion.
  std::unique_ptr<ShellCommand> target_command;
  std::size_t data_files = 0;  ///< files to commit before the sink is done
  /// What the files waiting to be verified and committed may hold open, from the
  /// descriptors this process got (RunServerOnFds raised its limit).
  OpenFileBudget open_files;

  Mutex mutex;
  /// Signals a pass decided, a batch committed, -z's Connect, or the abort.
  std::condition_variable cv;
  std::optional<SinkConnect> connect_to BRAID_GUARDED_BY(mutex);  ///< -z: where the source listens
  std::vector<std::unique_ptr<DataSocket>> sockets BRAID_GUARDED_BY(mutex);
  std::vector<std::thread> receivers BRAID_GUARDED_BY(mutex);
  PassCoordinator passes BRAID_GUARDED_BY(mutex);
  std::size_t committed BRAID_GUARDED_BY(mutex) = 0;

  std::string Where(const std::string& path) const {
    return host.empty() ? path : host + ":" + path;
  }
  bool hashing() const { return open.params.hash != HashAlgorithm::kNone; }

  // Run's steps, in order.
  PreparedTarget PrepareTarget();
  void SetUpWriting(bool null_device, std::atomic<std::uint64_t>& bytes);
  void Listen();
  void OnAbort();
  SinkReady Ready(ResumeSummary resumed) const;
  void ReceiveAll(const SinkCallbacks& callbacks, TransferState& state);

  /// SetUpWriting's parts: how blocks are written, and the buffers that takes.
  std::size_t ChooseWritePath(bool null_device);
  std::size_t SetUpVerifier();
  UniqueFd OpenStreamTarget();

  // The threads.
  void BringUpStreams(const SinkCallbacks& callbacks, TransferState& state);
  std::optional<SinkConnect> WaitForConnect(const TransferState& state);
  void AddStream(AuthenticatedStream stream, TransferState& state);
  void Receive(DataSocket& socket, std::size_t stream, TransferState& state);
  void Committed(const std::vector<FileDone>& batch, const SinkCallbacks& callbacks,
                 TransferState& state);
  void WaitUntilFinished(const TransferState& state);
  void JoinReceivers();
  void CloseStreams();

  // The pass/resend protocol around `passes`.
  /// Stream `stream` sent its pass end; waits for the decision and sends it.
  /// False: the stream is done (closed for writing, or the transfer failed).
  bool AwaitDecision(FrameStream& frames, std::size_t stream, std::uint32_t announced,
                     std::uint32_t still, TransferState& state);
  void OnStreamLost(const BraidError& e, std::size_t stream, TransferState& state);
  /// Called whenever a stream reaches its pass end or dies. Returns the error
  /// to fail the transfer with (after releasing `mutex`: the abort hooks take it).
  std::optional<BraidError> MaybeDecide() BRAID_REQUIRES(mutex);
};

SinkSession::SinkSession(PackedList entries, SinkOpen open, std::string host)
    : impl_(std::make_unique<Impl>()) {
  impl_->entries = std::move(entries);
  impl_->open = std::move(open);
  impl_->host = std::move(host);
}

SinkSession::~SinkSession() = default;

std::string SinkSession::ArrivingPath() const {
  std::uint32_t id = state_.arriving.load(std::memory_order_acquire);
  // A receiver stored it, so `files` was made before: the acquire sees it.
  if (id == TransferState::kNoneArriving) return "";
  return std::string(impl_->files->list().path(id));
}

void SinkSession::Advertise(std::vector<std::string> addresses) {
  impl_->advertise = std::move(addresses);
}

void SinkSession::Connect(const SinkConnect& where) {
  {
    MutexLock lock(impl_->mutex);
    impl_->connect_to = where;
  }
  impl_->cv.notify_all();
}

void SinkSession::Run(const SinkCallbacks& callbacks) {
  Impl& s = *impl_;
  s.warn = callbacks.warn;
  PreparedTarget prepared = s.PrepareTarget();
  s.SetUpWriting(prepared.null_device, state_.bytes);
  s.Listen();
  state_.OnAbort([&s] { s.OnAbort(); });
  if (!s.open.forward.empty()) {
    if (s.files->plan().mode == TargetPlan::Mode::kStream) {
      throw BraidError(ErrorCode::kUsage, s.Where(s.open.target) +
                                              " is written in order, so no hop can read it as "
                                              "it arrives; it cannot forward a chain");
    }
    s.feed = std::make_unique<ForwardFeed>(*s.files, s.open.forward, s.host);
  }
  callbacks.ready(s.Ready(std::move(prepared.resumed)));
  s.ReceiveAll(callbacks, state_);
  if (auto e = state_.error()) {
    if (s.feed) s.feed->Fail(e->what());
    s.CloseStreams();
    Kept kept = s.checkpoints->KeepPartials();
    if (callbacks.kept) callbacks.kept(kept);
    throw *e;
  }
  s.files->MakeHardLinks();
  s.files->FinishDirectories();
  if (s.feed) s.feed->Finish();
  if (std::optional<std::string> refused = s.files->DirectRefused()) {
    s.warn("-u t: " + *refused +
           " when opened O_DIRECT; it and any such file were written through the page cache");
  }
}

namespace {
/// What the tree-root mark beside `target` reads, or "" without one.
std::string ReadTreeRootMark(std::string target) {
  while (target.size() > 1 && target.back() == '/') target.pop_back();
  std::array<char, 4096> text{};
  ssize_t n = ::readlink(TreeRootMarkPath(target).c_str(), text.data(), text.size());
  return n > 0 ? std::string(text.data(), static_cast<std::size_t>(n)) : std::string();
}
}  // namespace

/// Plans where the files go, resumes what earlier runs left, and creates the
/// directories and links; refuses what must not be replaced.
PreparedTarget SinkSession::Impl::PrepareTarget() {
  // A congestion control this kernel lacks fails here, naming this host, before any
  // file is touched.
  CheckCongestionControl(open.params.congestion_control, host);
  struct stat st {};
  // -N o: the target is a command, written to as a pipe is.
  bool exists = !open.command && open.target != "-" && ::stat(open.target.c_str(), &st) == 0;
  TargetInfo info;
  info.exists = exists;
  info.is_directory = exists && S_ISDIR(st.st_mode);
  info.is_stream = open.command || IsStreamTarget(open.target, st, exists);
  if (info.is_directory) info.marked_root = ReadTreeRootMark(open.target);
  // Before anything is created: a list that would lead the sink through a link is refused.
  CheckListShape(entries);
  TargetPlan plan = PlanTarget(open.target, info, open.top_count, entries, host);
  // Moved: SinkFiles keeps the one copy of the list from here on (files->list()).
  files = std::make_unique<SinkFiles>(std::move(entries), plan, host, open.preserve);
  files->SetFsync(open.fsync);
  files->SetDirectWrites((open.params.direct & kDirectWrites) != 0);
  files->SetSparseZeros(open.params.sparse_zeros);
  checkpoints = std::make_unique<SinkCheckpoints>(*files, host, open.fsync, open.keep_partial);
  files->FindNewDirectories();
  PreparedTarget out;
  out.resumed =
      PrepareResume(*files, checkpoints->journals(), checkpoints->checkpointer(), open, host, warn);
  files->Prepare(open.force);
  out.null_device = IsNullDevice(st, exists);
  data_files = files->data_file_count();
  return out;
}

/// The write path, the verifier's feed, the buffer pool, the committer, and
/// what happens when a file is complete.
void SinkSession::Impl::SetUpWriting(bool null_device, std::atomic<std::uint64_t>& bytes) {
  const TransferParams& p = open.params;
  open_files = SplitOpenFiles(FilesOpenWithin(DescriptorLimit(), p.streams));
  files->BoundInFlight(open_files.in_flight);
  writer = std::make_unique<BlockWriter>(*files, *checkpoints, bytes);
  std::size_t buffers = ChooseWritePath(null_device) + SetUpVerifier();
  pool = std::make_unique<BufferPool>(p.block_size, buffers);
  committer =
      std::make_unique<CommitBatcher>(*files, *checkpoints, p.hash, open.force, host, open_files);
  // Onto a stream target the digest is of what was written, in order; to
  // files the verifier queues each file once it has hashed it.
  bool ordered_digest = hashing() && files->plan().mode == TargetPlan::Mode::kStream;
  files->OnComplete([this, ordered_digest](std::uint32_t id) {
    if (target_command) {
      // Done only once the command has read it all and succeeded.
      writer->CloseStream();
      target_command->Finish();
    }
    if (ordered_digest) {
      committer->Push(id, writer->FinishStreamDigest());
    } else if (!hashing()) {
      committer->Push(id, std::nullopt);
    }
  });
  MutexLock lock(mutex);
  passes = PassCoordinator(writer->ordered());
}

/// Returns the buffers the receivers need for it.
std::size_t SinkSession::Impl::ChooseWritePath(bool null_device) {
  const TransferParams& p = open.params;
  bool stream_target = files->plan().mode == TargetPlan::Mode::kStream;
  std::uint64_t window = std::uint64_t{kReorderBlocks} * p.block_size;
  if (stream_target && !hashing() && null_device) {
    writer->Discard();
  } else if (stream_target) {
    std::uint32_t id = 0;
    while (!files->list().carries_data(id)) ++id;
    // A command is named as one, so "stopped reading" says what stopped.
    std::string target = open.command         ? "the command '" + open.target + "'"
                         : open.target == "-" ? "stdout"
                                              : open.target;
    writer->OrderedStream(OpenStreamTarget(), host, std::move(target), id, window, p.hash);
    return p.streams + kReorderBlocks + 1;
  } else if (p.ordered) {
    writer->OrderedFiles(files->list(), window);
    return p.streams + kReorderBlocks + 1;
  }
  return 2 * std::size_t{p.streams} + 2;
}

UniqueFd SinkSession::Impl::OpenStreamTarget() {
  if (open.command) {
    target_command = std::make_unique<ShellCommand>(
        open.target, ShellCommand::Direction::kWriteItsInput, host, ErrorCode::kTargetUnwritable);
    return target_command->TakePipe();
  }
  UniqueFd fd(open.target == "-" ? ::dup(STDOUT_FILENO)
                                 : ::open(open.target.c_str(), O_WRONLY | O_CLOEXEC));
  if (!fd.valid()) {
    throw BraidError(ErrorCodeForTargetErrno(errno), DescribeErrno(host, open.target, errno));
  }
  return fd;
}

/// -E to files: the verifier's feed. Returns the buffers it may hold.
std::size_t SinkSession::Impl::SetUpVerifier() {
  const TransferParams& p = open.params;
  if (!hashing() || files->plan().mode == TargetPlan::Mode::kStream) return 0;
  std::size_t held = 0;
  if (!p.ordered) {
    // Blocks arrive out of order by what the streams hold in flight; the
    // verifier keeps up to 16 MiB of them (at least 2 blocks), in buffers of its own.
    held = std::clamp<std::size_t>(kVerifyHeldBytes / p.block_size, 2, 16);
  }
  // Receivers hand a block over before they wait, so the feed fills past the
  // lag it allows: half of it is room for those.
  std::uint64_t ahead = std::max<std::uint64_t>(1, held / 2) * p.block_size;
  verify_feed = std::make_unique<VerifyFeed>(held, ahead);
  files->BoundByVerifier(open_files.verify_ahead);
  // -o writes through the ordered writer, which hands nothing to the feed:
  // the verifier reads every block back.
  if (!p.ordered) writer->FeedVerifier(verify_feed.get());
  return held;
}

void SinkSession::Impl::Listen() {
  const TransferParams& p = open.params;
  if (p.reverse) return;  // -z: the streams connect to the source
  listener = std::make_unique<DataListener>(
      open.listen_address.empty() ? "127.0.0.1" : open.listen_address, TuningFor(p), p.port_min,
      p.port_max);
}

/// The abort hook: wakes every thread wherever it waits.
void SinkSession::Impl::OnAbort() {
  // First: a command that stopped reading holds a write to it (and the
  // ordered writer's lock, which writer->Abort takes) until it is gone.
  if (target_command) target_command->Kill();
  files->Abort();
  pool->Close();
  writer->Abort();
  committer->Abort();
  if (verify_feed) verify_feed->Stop();
  if (listener) listener->Stop();
  MutexLock lock(mutex);
  for (auto& sock : sockets) sock->Shutdown();
  cv.notify_all();
}

SinkReady SinkSession::Impl::Ready(ResumeSummary resumed) const {
  SinkReady ready;
  if (listener) {
    ready.addresses = advertise.empty() ? std::vector<std::string>{listener->address()} : advertise;
    ready.port = listener->port();
  }
  ready.resume = std::move(resumed.entries);
  ready.kept_bytes = resumed.kept_bytes;
  ready.failed_blocks = resumed.failed_blocks;
  return ready;
}

/// Runs the threads until every file is in place or the transfer failed, and joins them.
void SinkSession::Impl::ReceiveAll(const SinkCallbacks& callbacks, TransferState& state) {
  std::thread acceptor(state.Guarded([&] { BringUpStreams(callbacks, state); }));
  std::thread committing(state.Guarded(
      [&] { committer->Run([&](const auto& batch) { Committed(batch, callbacks, state); }); }));
  std::thread checkpointing(state.Guarded([&] { checkpoints->Loop(state); }));
  std::thread verifier;
  if (verify_feed) {
    verifier = std::thread(state.Guarded([&] {
      VerifyFiles(*files, *verify_feed, open.params.hash, open.params.block_size, host, state,
                  [this](std::uint32_t id, const DigestValue& d) { committer->Push(id, d); });
    }));
  }
  WaitUntilFinished(state);
  if (listener) listener->Stop();
  cv.notify_all();
  acceptor.join();
  if (!state.failed()) committer->Close();
  JoinReceivers();
  committing.join();
  if (verifier.joinable()) verifier.join();
  checkpoints->Stop();
  checkpointing.join();
}

void SinkSession::Impl::BringUpStreams(const SinkCallbacks& callbacks, TransferState& state) {
  const TransferParams& p = open.params;
  auto add = [&](AuthenticatedStream stream) { AddStream(std::move(stream), state); };
  if (listener) {
    listener->Run(p.secret, p.session, p.streams, p.cipher, kAcceptDeadline, add);
    return;
  }
  // -z: the source listens; the agent passes on where (Connect()).
  std::optional<SinkConnect> where = WaitForConnect(state);
  if (!where) return;
  for (auto& c : ConnectStreams(where->addresses, where->port, p, callbacks.warn)) {
    add(std::move(c));
  }
}

std::optional<SinkConnect> SinkSession::Impl::WaitForConnect(const TransferState& state) {
  MutexLock lock(mutex);
  while (!connect_to && !state.failed()) cv.wait(lock.native());
  return connect_to;
}

/// A stream is in: it gets a receiver thread at once.
void SinkSession::Impl::AddStream(AuthenticatedStream stream, TransferState& state) {
  MutexLock lock(mutex);
  if (state.failed()) return;
  sockets.push_back(std::make_unique<DataSocket>(std::move(stream)));
  DataSocket* raw = sockets.back().get();
  std::size_t index = passes.Connect();
  state.streams = static_cast<std::uint16_t>(sockets.size());
  receivers.emplace_back(
      state.Guarded([this, raw, index, &state] { Receive(*raw, index, state); }));
}

void SinkSession::Impl::Receive(DataSocket& socket, std::size_t stream, TransferState& state) {
  try {
    StreamReceiver receiver(socket, open.params, *files, *pool, *writer, host);
    receiver.Run(state, [&](std::uint32_t announced, std::uint32_t still) {
      return AwaitDecision(receiver.frames(), stream, announced, still, state);
    });
  } catch (const BraidError& e) {
    if (!LostOnItsOwn(e, state)) throw;
    OnStreamLost(e, stream, state);
  }
}

/// A stream that dies is not the end of the copy: the others finish the pass,
/// and the sink asks again for what this one lost in flight.
void SinkSession::Impl::OnStreamLost(const BraidError& e, std::size_t stream,
                                     TransferState& state) {
  MutexLock lock(mutex);
  if (passes.done()) return;  // it died after the last pass: no loss
  // An orphan the last decision closed was counted lost then; the source said so.
  if (!passes.Lose(stream)) return;
  warn(SurviveStreamLoss(e, passes.connected(), passes.lost()));
  std::optional<BraidError> failure = MaybeDecide();
  lock.Unlock();
  if (failure) state.Fail(*failure);
}

void SinkSession::Impl::Committed(const std::vector<FileDone>& batch,
                                  const SinkCallbacks& callbacks, TransferState& state) {
  callbacks.files_done(batch);
  // Progress and Done report them; the agent's stall watch takes it as progress.
  state.files_done.fetch_add(batch.size());
  {
    MutexLock lock(mutex);
    committed += batch.size();
  }
  cv.notify_all();
}

void SinkSession::Impl::WaitUntilFinished(const TransferState& state) {
  MutexLock lock(mutex);
  while (!state.failed() && !(committed == data_files && passes.done())) cv.wait(lock.native());
}

/// Once the acceptor is joined: no receiver is added any more.
void SinkSession::Impl::JoinReceivers() {
  std::vector<std::thread> threads;
  {
    MutexLock lock(mutex);
    threads.swap(receivers);
  }
  for (auto& t : threads) t.join();
}

/// Once the receivers are joined, after a failure. Unread data makes the
/// close a reset: the source stops at once, where a shut-down stream with a
/// full window would leave it blocked until the agent's Abort.
void SinkSession::Impl::CloseStreams() {
  MutexLock lock(mutex);
  sockets.clear();
}

bool SinkSession::Impl::AwaitDecision(FrameStream& frames, std::size_t stream,
                                      std::uint32_t announced, std::uint32_t still,
                                      TransferState& state) {
  MutexLock lock(mutex);
  std::uint64_t my_pass = passes.PassEnd(stream, announced, still);
  if (std::optional<BraidError> failure = MaybeDecide()) {
    lock.Unlock();
    state.Fail(*failure);
    return false;
  }
  while (!passes.Decided(my_pass) && !state.failed()) cv.wait(lock.native());
  if (state.failed()) return false;
  if (passes.done()) {
    lock.Unlock();
    ::shutdown(frames.socket().fd(), SHUT_WR);
    return false;
  }
  std::vector<std::uint8_t> payload = EncodeResendList(passes.resend());
  std::uint64_t number = passes.pass();
  lock.Unlock();
  frames.Send(FrameHeader{.type = FrameType::kResend, .offset = number}, payload);
  return true;
}

std::optional<BraidError> SinkSession::Impl::MaybeDecide() {
  if (!passes.ReadyToDecide()) return std::nullopt;
  PassReport report;
  if (passes.NeedsMissing()) {
    std::vector<std::uint32_t> unrepairable;
    std::size_t limit = open.params.block_size / kResendRangeSize;
    for (const auto& [id, offset, length] : files->Missing(limit, unrepairable)) {
      report.missing.push_back({id, offset, length});
    }
    if (!unrepairable.empty()) {
      report.unrepairable = Where(files->final_path(unrepairable.front()));
    }
  }
  report.bytes_received = files->bytes_received();
  std::optional<BraidError> failure = passes.Decide(report);
  // Its receiver waits on a connection that will never bring anything: the
  // source's end of it timed out, which does not reach this end.
  for (std::size_t orphan : passes.TakeOrphans()) {
    ::shutdown(sockets[orphan]->fd(), SHUT_RDWR);
  }
  if (failure) return failure;
  if (!passes.done()) {
    std::size_t n = passes.resend().size();
    warn("asking the source again for " + std::to_string(n) + " range" + (n == 1 ? "" : "s") +
         " lost in flight");
  }
  cv.notify_all();
  return std::nullopt;
}

}  // namespace braid
