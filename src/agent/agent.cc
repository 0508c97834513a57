#include "agent/agent.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <thread>

#include "agent/file_list_check.h"
#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "agent/report/progress_display.h"
#include "agent/report/transfer_report.h"
#include "agent/retry_plan.h"
#include "agent/server_end.h"
#include "agent/stall_watch.h"
#include "proto/list_budget.h"
#include "transport/socket_tuning.h"

namespace braid {
namespace {

/// After the first error, wait this long for the other side's, to report the cause
/// (a full disk) rather than its echo (a reset stream).
constexpr auto kErrorGrace = std::chrono::milliseconds(400);
constexpr auto kTick = std::chrono::milliseconds(100);
/// How long a server that stopped reporting gets to answer Abort before it is
/// abandoned: a stopped process never will, and a live one answers at once.
constexpr auto kSilentCloseGrace = std::chrono::seconds(2);
/// After Ctrl-C: time for the ends to answer Abort with what they kept,
/// inside kInterruptBound.
constexpr auto kInterruptCloseGrace = std::chrono::milliseconds(1000);

/// Errors that are usually the consequence of a failure elsewhere.
bool IsEcho(ErrorCode code) {
  return code == ErrorCode::kPeerLost || code == ErrorCode::kInterrupted;
}

class Agent {
 public:
  Agent(const Options& options, ServerLauncher& launcher, RetryPlan& retry)
      : options_(options),
        launcher_(launcher),
        retry_(retry),
        start_(std::chrono::steady_clock::now()) {}

  /// After Run failed: whether the retry plan runs the copy again.
  bool retrying() const { return retrying_; }

  int Run() {
    Endpoint source = CheckSources();
    // A local end runs on this kernel, so a congestion control it lacks is known now,
    // before any ssh session; remote ends check their own when the transfer starts.
    if (!source.is_remote() || !options_.destination.is_remote()) {
      CheckCongestionControl(options_.congestion_control);
    }
    try {
      if (TransferReport::Wanted(options_)) {
        report_ = std::make_unique<TransferReport>(options_, retry_.retries() > 0);
      }
      source_ = std::make_unique<ServerEnd>(Side::kSource, source, options_, launcher_, events_);
      // The source walks its tree while the sink's ssh session comes up; its
      // list waits in the event queue until Transfer reads it.
      OpenSource();
      sink_ = std::make_unique<ServerEnd>(Side::kSink, options_.destination, options_, launcher_,
                                          events_);
      Transfer();
    } catch (const BraidError& e) {
      return Fail(e);
    }
    source_->Close(std::nullopt);
    sink_->Close(std::nullopt);
    Report();
    return 0;
  }

 private:
  Endpoint CheckSources() const {
    const Endpoint& first = options_.sources.front();
    for (const auto& s : options_.sources) {
      if (s.host != first.host || s.user != first.user) {
        throw BraidError(ErrorCode::kUsage, "all sources must be on one host (" + first.Display() +
                                                " and " + s.Display() + " are not)");
      }
      if (s.is_stdio() && options_.sources.size() > 1) {
        throw BraidError(ErrorCode::kUsage, "'-' (stdin) must be the only source");
      }
    }
    if (options_.destination.is_stdio() && options_.recursive) {
      throw BraidError(ErrorCode::kUsage, "cannot write a directory tree to stdout");
    }
    if (options_.destination.is_stdio() && options_.json) {
      throw BraidError(ErrorCode::kUsage, "--json prints on stdout, so DST cannot be '-'");
    }
    return first;
  }

  double Elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

  /// The next event; throws on interrupt, errors and unexpected ends.
  AgentEvent Next() {
    for (;;) {
      ThrowIfInterrupted();
      if (stall_) {
        if (auto why = stall_->Check(std::chrono::steady_clock::now())) {
          throw BraidError(ErrorCode::kStalled, *why);
        }
      }
      std::optional<AgentEvent> ev = events_.PopFor(kTick);
      if (progress_) progress_->Update(Elapsed(), bytes_);
      if (!ev) continue;
      if (stall_) stall_->OnMessage(static_cast<int>(ev->side), std::chrono::steady_clock::now());
      ServerEnd& end = ev->side == Side::kSource ? *source_ : *sink_;
      if (ev->error) throw *ev->error;
      if (!ev->message) throw end.DescribeEnd();
      if (auto* err = std::get_if<ErrorMessage>(&*ev->message)) {
        throw BraidError(err->code, err->message);
      }
      if (auto* warn = std::get_if<Warning>(&*ev->message)) {
        PrintLine(stderr, "braid: warning: %s", warn->message.c_str());
        continue;
      }
      if (auto* kept = std::get_if<Kept>(&*ev->message)) {
        kept_ = *kept;
        continue;
      }
      return std::move(*ev);
    }
  }

  [[noreturn]] static void Unexpected(const AgentEvent& ev) {
    throw BraidError(ErrorCode::kProtocol, std::string("protocol error: unexpected ") +
                                               MessageName(*ev.message) + " from the " +
                                               (ev.side == Side::kSource ? "source" : "sink"));
  }

  void OpenSource() {
    SourceOpen open;
    for (const auto& s : options_.sources) open.paths.push_back(s.path);
    open.recursive = options_.recursive;
    open.follow_symlinks = options_.follow_symlinks;
    open.device_size = options_.size;
    source_->Send(open);
  }

  /// The copy proper, once both ends said Hello: the file list to the sink,
  /// where the sink listens to the source, then the data phase to both Dones.
  void Transfer() {
    TransferParams params = MakeParams();
    ReceiveFileList();
    params.streams = StreamsWorthConnecting(params);
    sink_->Send(MakeSinkOpen(params));
    SinkReady ready = WaitForReady();
    ReportResume(ready);
    if (options_.verbose > 0) SayPlan(ready, params);
    source_->Send(MakeSourceStart(std::move(ready), params));
    retry_.NoteStarted();
    if (options_.reverse) ConnectReverse();
    if (report_) report_->Start(Elapsed());
    StartStallWatch();
    WatchDataPhase();
    stall_.reset();
    progress_->Complete(Elapsed(), bytes_);
    if (report_) report_->Finish(Elapsed(), bytes_);
  }

  /// What both ends are told about the data streams, with a fresh secret.
  TransferParams MakeParams() const {
    TransferParams params;
    params.streams = static_cast<std::uint16_t>(options_.streams);
    params.block_size = options_.block_size;
    params.window = options_.window;
    params.hash = options_.hash;
    params.secret = RandomArray<kSecretSize>();
    params.session = RandomArray<kSessionIdSize>();
    params.rate = options_.rate;
    params.tos = static_cast<std::int16_t>(options_.tos);
    params.congestion_control = options_.congestion_control;
    params.compress_level = static_cast<std::int8_t>(options_.compress_level);
    params.ordered = options_.ordered;
    params.auto_streams = options_.streams_auto;
    params.min_streams =
        static_cast<std::uint16_t>(options_.streams_auto ? options_.streams_min : options_.streams);
    params.polite = options_.polite;
    params.reverse = options_.reverse;
    params.port_min = options_.port_min;
    params.port_max = options_.port_max;
    params.family = static_cast<std::uint8_t>(options_.family);
    params.cipher = options_.cipher;
    return params;
  }

  SinkOpen MakeSinkOpen(const TransferParams& params) const {
    SinkOpen sink_open;
    sink_open.target = options_.destination.path;
    sink_open.top_count = static_cast<std::uint16_t>(options_.sources.size());
    sink_open.force = options_.force;
    sink_open.preserve = options_.preserve;
    sink_open.recursive = options_.recursive;
    if (!options_.data_host.empty()) {
      sink_open.listen_address = options_.data_host;
    } else if (!sink_->is_remote()) {
      // A local sink is reached on loopback from a local source, or on our
      // own address of the ssh connection from a remote one.
      sink_open.listen_address = source_->is_remote() ? source_->local_address() : "127.0.0.1";
    }
    sink_open.params = params;
    sink_open.resume = options_.no_resume ? ResumeMode::kOff
                       : options_.append  ? ResumeMode::kRequire
                                          : ResumeMode::kAuto;
    sink_open.verify_kept = options_.verify_kept;
    sink_open.keep_partial = !options_.remove_partial;
    sink_open.fsync = options_.fsync;
    return sink_open;
  }

  /// -v: what is about to be copied, where the sink listens, and the network options.
  void SayPlan(const SinkReady& ready, const TransferParams& params) const {
    std::string where = "the source will listen (-z)";
    if (!ready.addresses.empty()) {
      where =
          "sink listening on " + ready.addresses.front() + " port " + std::to_string(ready.port);
      if (ready.addresses.size() > 1) {
        where += " (and " + std::to_string(ready.addresses.size() - 1) + " other addresses)";
      }
    }
    PrintLine(stderr, "braid: %zu files, %s; %s; %d streams", files_,
              total_ ? FormatBytes(*total_).c_str() : "size unknown", where.c_str(),
              static_cast<int>(params.streams));
    if (options_.tos >= 0) {
      PrintLine(stderr, "braid: qos: tos 0x%02x", static_cast<unsigned>(options_.tos));
    }
    if (!options_.congestion_control.empty()) {
      PrintLine(stderr, "braid: congestion control: %s", options_.congestion_control.c_str());
    }
  }

  /// Where the source connects (or, with -z, listens), and what the sink already has.
  SourceStart MakeSourceStart(SinkReady ready, const TransferParams& params) const {
    SourceStart start;
    start.addresses = std::move(ready.addresses);
    start.port = ready.port;
    start.params = params;
    start.resume = std::move(ready.resume);
    if (options_.reverse) {
      // -z: the source listens where the sink can reach it.
      if (!options_.data_host.empty()) {
        start.listen_address = options_.data_host;
      } else if (!source_->is_remote()) {
        start.listen_address = sink_->is_remote() ? sink_->local_address() : "127.0.0.1";
      }
    }
    return start;
  }

  /// -z: the source says where it listens, and the sink is sent there.
  void ConnectReverse() {
    SourceReady listening = WaitForSource();
    if (options_.verbose > 0) {
      PrintLine(stderr, "braid: -z: source listening on %s port %u",
                listening.addresses.front().c_str(), listening.port);
    }
    sink_->Send(SinkConnect{listening.addresses, listening.port});
  }

  /// --stall-timeout: from here on, the sink's counts must move.
  void StartStallWatch() {
    if (options_.stall_timeout <= 0) return;
    stall_.emplace(std::chrono::duration_cast<StallWatch::Clock::duration>(
                       std::chrono::duration<double>(options_.stall_timeout)),
                   std::chrono::steady_clock::now(),
                   std::array<std::string, 2>{EndName(*source_, "source"), EndName(*sink_, "sink")},
                   // A pipe's producer may pause; with -E the source reads what the sink
                   // kept (to hash it) without sending any of it.
                   stream_source_ || (options_.hash != HashAlgorithm::kNone && skipped_bytes_ > 0));
  }

  /// Shows progress until both ends are Done.
  void WatchDataPhase() {
    std::optional<std::uint64_t> to_send = total_;
    if (to_send) *to_send -= std::min(*to_send, skipped_bytes_);
    progress_ = std::make_unique<ProgressDisplay>(options_.progress_interval, to_send);
    bool sink_done = false;
    bool source_done = false;
    while (!sink_done || !source_done) {
      AgentEvent ev = Next();
      ControlMessage& m = *ev.message;
      if (auto* p = std::get_if<Progress>(&m)) {
        OnProgress(ev.side, *p);
      } else if (auto* d = std::get_if<FileDone>(&m); d && ev.side == Side::kSink) {
        OnFileDone(std::move(*d));
      } else if (auto* done = std::get_if<Done>(&m)) {
        if (stall_) stall_->OnDone(static_cast<int>(ev.side));
        if (ev.side == Side::kSink) {
          sink_done = true;
          bytes_ = done->bytes;
          wire_bytes_ = done->wire_bytes;
        } else {
          source_done = true;
          streams_ = std::max(streams_, done->streams);
        }
      } else {
        Unexpected(ev);
      }
    }
  }

  void OnProgress(Side side, const Progress& p) {
    if (stall_) {
      stall_->OnProgress(static_cast<int>(side), p.bytes, p.files_done,
                         std::chrono::steady_clock::now());
    }
    if (side == Side::kSink) bytes_ = p.bytes;
    if (side == Side::kSource) max_active_ = std::max(max_active_, p.active_streams);
    if (!p.controller_note.empty() && options_.verbose > 0) {
      PrintLine(stderr, "braid: streams: %s", p.controller_note.c_str());
    }
    streams_ = std::max(streams_, p.streams);
    if (report_) report_->OnProgress(Elapsed(), side == Side::kSource, p, bytes_);
  }

  /// -s auto connects no more streams than the data has blocks: a stream that would carry
  /// no block of its own costs a connection (and, over ssh, a round trip) and pays nothing.
  /// A fixed -s N is what the user asked for; an unknown size (a pipe) may be anything.
  std::uint16_t StreamsWorthConnecting(const TransferParams& params) const {
    if (!options_.streams_auto || !total_ || params.block_size == 0) return params.streams;
    const std::uint64_t blocks =
        std::max<std::uint64_t>(1, (*total_ + params.block_size - 1) / params.block_size);
    const std::uint64_t worth = std::max<std::uint64_t>(params.min_streams, blocks);
    return static_cast<std::uint16_t>(std::min<std::uint64_t>(params.streams, worth));
  }

  /// "the sink on dtn" or "the local source", for the stall message.
  static std::string EndName(const ServerEnd& end, const char* role) {
    return end.is_remote() ? std::string("the ") + role + " on " + end.label()
                           : std::string("the local ") + role;
  }

  void ReceiveFileList() {
    std::optional<std::uint64_t> total = 0;
    std::vector<std::string> asked;
    for (const auto& s : options_.sources) asked.push_back(s.path);
    FileListCheck check(asked, options_.recursive);
    ListBudget budget(options_.list_limits, EndName(*source_, "source"));
    for (;;) {
      AgentEvent ev = Next();
      auto* list = std::get_if<FileList>(&*ev.message);
      if (list == nullptr || ev.side != Side::kSource) Unexpected(ev);
      source_->TookFileList();
      for (const auto& e : list->entries) {
        budget.Add(e);
        check.Check(e);
      }
      for (const auto& e : list->entries) {
        sizes_.push_back(e.kind == FileKind::kRegular ? e.size : 0);
        if (e.kind != FileKind::kRegular && e.kind != FileKind::kStream) continue;
        ++files_;
        if (e.kind == FileKind::kStream) stream_source_ = true;
        if (e.size == kUnknownSize) {
          total.reset();
        } else if (total) {
          *total += e.size;
        }
      }
      sink_->Send(*ev.message);  // the message itself: a FileList converted would be copied
      if (list->last) break;
    }
    total_ = total;
  }

  /// Says what an earlier run left that this one uses, and counts it.
  void ReportResume(const SinkReady& ready) {
    std::size_t complete = 0;
    std::size_t partial = 0;
    for (const ResumeEntry& r : ready.resume) {
      // The codec keeps ids increasing, so checking each entry's end bounds them all.
      if (r.end() > sizes_.size()) {
        throw BraidError(ErrorCode::kProtocol,
                         "protocol error: " + EndName(*sink_, "sink") + " named file " +
                             std::to_string(r.end() - 1) + " in its resume list, past the " +
                             std::to_string(sizes_.size()) + " entries of the file list");
      }
      if (!r.complete) {
        ++partial;
        continue;
      }
      complete += r.count;
      for (std::uint64_t id = r.id; id < r.end(); ++id) skipped_bytes_ += sizes_[id];
    }
    skipped_bytes_ += ready.kept_bytes;
    failed_blocks_ = ready.failed_blocks;
    if (ready.resume.empty() && ready.failed_blocks == 0) return;
    std::string what;
    if (partial > 0) {
      what = FormatBytes(ready.kept_bytes) + " kept in " + std::to_string(partial) +
             " partial file" + (partial == 1 ? "" : "s");
    }
    if (complete > 0) {
      if (!what.empty()) what += ", ";
      what += std::to_string(complete) + " file" + (complete == 1 ? "" : "s") + " already complete";
    }
    if (ready.failed_blocks > 0) {
      if (!what.empty()) what += "; ";
      what += std::to_string(ready.failed_blocks) + " kept block" +
              (ready.failed_blocks == 1 ? "" : "s") + " failed verification and will be sent again";
    }
    PrintLine(stderr, "braid: resuming %s: %s", DestinationName().c_str(), what.c_str());
  }

  std::string DestinationName() const {
    return sink_->is_remote() ? sink_->label() + ":" + options_.destination.path
                              : options_.destination.path;
  }

  SourceReady WaitForSource() {
    for (;;) {
      AgentEvent ev = Next();
      if (auto* r = std::get_if<SourceReady>(&*ev.message); r && ev.side == Side::kSource) {
        return *r;
      }
      if (std::holds_alternative<Progress>(*ev.message)) continue;
      Unexpected(ev);
    }
  }

  SinkReady WaitForReady() {
    for (;;) {
      AgentEvent ev = Next();
      if (auto* r = std::get_if<SinkReady>(&*ev.message); r && ev.side == Side::kSink) return *r;
      if (std::holds_alternative<Progress>(*ev.message)) continue;
      Unexpected(ev);
    }
  }

  /// Stops both ends, picks the error that explains the failure, prints it.
  int Fail(BraidError error) {
    if (progress_) progress_->Finish();
    // Whatever broke after Ctrl-C (an ssh client it also stopped), the user's
    // interrupt is the cause, and the user is waiting.
    const bool interrupted = PendingInterrupt() != 0;
    if (interrupted) error = InterruptError();
    auto deadline = std::chrono::steady_clock::now() + kErrorGrace;
    while (!interrupted && IsEcho(error.code()) && (source_ || sink_) &&
           std::chrono::steady_clock::now() < deadline) {
      std::optional<AgentEvent> ev = events_.PopFor(kTick);
      if (!ev || !ev->message) continue;
      if (auto* kept = std::get_if<Kept>(&*ev->message)) kept_ = *kept;
      if (auto* err = std::get_if<ErrorMessage>(&*ev->message); err && !IsEcho(err->code)) {
        error = BraidError(err->code, err->message);
      }
    }
    StopEnds(error, interrupted);
    if (!interrupted && retry_.Decide(error, Resumable())) return SayRetry(error);
    // A sink stopped by the Abort above reports what it kept as it goes.
    while (std::optional<AgentEvent> ev = events_.PopFor(std::chrono::milliseconds(0))) {
      if (!ev->message) continue;
      if (auto* kept = std::get_if<Kept>(&*ev->message)) kept_ = *kept;
    }
    PrintLine(stderr, "braid: %s", error.what());
    ReportKept();
    if (report_) {
      report_->Finish(Elapsed(), bytes_);
      ReportEnd end;
      end.bytes = bytes_;
      end.files = done_count_;
      end.streams_used = options_.streams_auto ? max_active_ : streams_;
      end.bytes_skipped = skipped_bytes_;
      end.blocks_resent = failed_blocks_;
      end.bytes_kept = kept_ ? kept_->bytes : 0;
      end.error = error.what();
      end.retries = retry_.notes();
      report_->PrintJson(end);
    }
    return interrupted ? InterruptExitCode() : ExitCodeFor(error.code());
  }

  /// A pipe or stdin source cannot be read again, and stdout cannot be resumed.
  bool Resumable() const { return !stream_source_ && !options_.destination.is_stdio(); }

  /// The failure that a retry follows: its cause and what happens next, on
  /// two lines; the report's CSV rows stay and its JSON waits for the last attempt.
  int SayRetry(const BraidError& error) {
    retrying_ = true;
    if (report_) report_->Finish(Elapsed(), bytes_);
    PrintLine(stderr, "braid: %s", error.what());
    PrintLine(stderr, "braid: retry %d of %d in %.0f s (--retry), resuming what arrived",
              retry_.retries(), retry_.max_retries(), retry_.notes().back().delay_s);
    return ExitCodeFor(error.code());
  }

  /// Aborts both ends at once, then waits for each to go: after an interrupt
  /// briefly (a live end answers at once), after a stall not long for an end
  /// that stopped reporting (it will likely not answer either), otherwise as
  /// long as a server may take to stop its work.
  void StopEnds(const BraidError& error, bool interrupted) {
    const std::string reason = error.what();
    const auto now = std::chrono::steady_clock::now();
    auto deadline = [&](Side side) {
      bool silent = error.code() == ErrorCode::kStalled && stall_ &&
                    stall_->Silent(static_cast<int>(side), now);
      if (interrupted) return now + kInterruptCloseGrace;
      return now + (silent ? kSilentCloseGrace : ServerEnd::kCloseGrace);
    };
    if (source_) source_->BeginClose(reason);
    if (sink_) sink_->BeginClose(reason);
    if (source_) source_->FinishClose(deadline(Side::kSource));
    if (sink_) sink_->FinishClose(deadline(Side::kSink));
  }

  /// The last word after a failure: what a re-run will not have to send again.
  void ReportKept() {
    if (!sink_ || options_.destination.is_stdio()) return;
    if (kept_ && kept_->partial_files > 0) {
      PrintLine(stderr,
                "braid: kept %s in %u partial file%s at %s; run the same command again to "
                "resume",
                FormatBytes(kept_->bytes).c_str(), kept_->partial_files,
                kept_->partial_files == 1 ? "" : "s", DestinationName().c_str());
    } else if (!kept_ && retry_.started() && !options_.remove_partial) {
      // The sink went away without a word once data was flowing: what it
      // journaled (each block as soon as it was written) is still there.
      PrintLine(stderr,
                "braid: partial files at %s keep what was journaled before the failure; run "
                "the same command again to resume",
                DestinationName().c_str());
    }
  }

  /// Counts a file in place; keeps it only for the digest lines it has (a
  /// million files without -E cost nothing here).
  void OnFileDone(FileDone d) {
    ++done_count_;
    all_hashed_ = all_hashed_ && d.hash == options_.hash;
    if (d.hash == HashAlgorithm::kNone) return;
    d.source_digest = {};
    done_files_.push_back(std::move(d));
  }

  /// A file's name as the user named the destination (host: prefix if remote).
  std::string DonePath(const FileDone& d) const {
    return sink_->is_remote() ? sink_->label() + ":" + d.final_path : d.final_path;
  }

  void Report() {
    // --json owns stdout: one document and nothing else.
    std::FILE* out = options_.destination.is_stdio() || options_.json ? stderr : stdout;
    // The lines md5sum, sha256sum and xxh128sum print, so `sha256sum -c` checks them.
    // done_files_ holds only files with a digest (OnFileDone).
    for (const auto& d : done_files_) {
      PrintLine(out, "%s  %s", ToHex(d.sink_digest).c_str(), DonePath(d).c_str());
    }
    std::fflush(out);
    if (options_.verbose > 0 || (progress_ && progress_->active())) {
      double secs = Elapsed();
      std::string wire;
      if (options_.compress_level > 0) wire = ", " + FormatBytes(wire_bytes_) + " on the wire";
      std::string resumed;
      if (skipped_bytes_ > 0) resumed = ", " + FormatBytes(skipped_bytes_) + " skipped by resume";
      if (failed_blocks_ > 0) {
        resumed += ", " + std::to_string(failed_blocks_) + " kept block" +
                   (failed_blocks_ == 1 ? "" : "s") + " re-sent after failed verification";
      }
      std::string verified;
      if (options_.hash != HashAlgorithm::kNone) {
        verified = ", " + std::string(HashDisplayName(options_.hash)) + " verified";
      }
      if (retry_.retries() > 0) {
        verified += ", after " + std::to_string(retry_.retries()) +
                    (retry_.retries() == 1 ? " retry" : " retries");
      }
      std::string over = std::to_string(streams_) + " streams";
      if (options_.streams_auto) {
        over = "up to " + std::to_string(max_active_) + " of " + over + " (-s auto)";
      }
      if (options_.cipher == Cipher::kNone) over += ", unencrypted";  // else sealed: the default
      PrintLine(stderr, "braid: copied %s in %zu files in %.2f s (%s) over %s%s%s%s",
                FormatBytes(bytes_).c_str(), files_, secs,
                FormatRate(secs > 0 ? static_cast<double>(bytes_) / secs : 0).c_str(), over.c_str(),
                wire.c_str(), resumed.c_str(), verified.c_str());
    }
    if (report_) {
      ReportEnd end;
      end.bytes = bytes_;
      end.files = files_;
      end.streams_used = options_.streams_auto ? max_active_ : streams_;
      end.hash_verified = options_.hash != HashAlgorithm::kNone && all_hashed_;
      for (const auto& d : done_files_) {
        end.digests.push_back({DonePath(d), d.hash, ToHex(d.sink_digest)});
      }
      end.bytes_skipped = skipped_bytes_;
      end.blocks_resent = failed_blocks_;
      end.retries = retry_.notes();
      report_->PrintJson(end);
    }
  }

  // One thread: everything below is the agent's own thread's (Run and what it
  // calls), except events_, which the ends' reader threads push into (it locks
  // inside). The ends' threads never touch the Agent itself.
  const Options& options_;
  ServerLauncher& launcher_;
  RetryPlan& retry_;  ///< across attempts: RunAgent's
  bool retrying_ = false;
  std::chrono::steady_clock::time_point start_;
  BlockingQueue<AgentEvent> events_;
  std::unique_ptr<ServerEnd> source_;
  std::unique_ptr<ServerEnd> sink_;
  std::unique_ptr<ProgressDisplay> progress_;
  std::unique_ptr<TransferReport> report_;  ///< --json / --report-csv; null without them
  std::optional<StallWatch> stall_;         ///< --stall-timeout, during the data phase only
  std::optional<std::uint64_t> total_;
  std::size_t files_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t wire_bytes_ = 0;
  std::uint16_t streams_ = 0;
  std::uint16_t max_active_ = 0;      ///< -s auto: the most streams that carried data at once
  std::vector<FileDone> done_files_;  ///< those with a digest to print (-E)
  std::size_t done_count_ = 0;        ///< every FileDone
  bool all_hashed_ = true;            ///< every FileDone carried options_.hash
  /// Every entry's size by id (0 unless regular): 8 bytes an entry, the agent's
  /// only per-entry state besides the digests it prints. A deque: a vector
  /// growing to a million entries held three times that while it moved.
  std::deque<std::uint64_t> sizes_;
  std::uint64_t skipped_bytes_ = 0;  ///< not sent because an earlier run has them
  std::uint32_t failed_blocks_ = 0;
  bool stream_source_ = false;  ///< a source is a pipe or stdin, which may pause
  std::optional<Kept> kept_;    ///< what the sink kept after a failure
};

/// Waits `delay` in short slices; false if an interrupt came first.
bool SleepUnlessInterrupted(std::chrono::milliseconds delay) {
  const auto until = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < until) {
    if (PendingInterrupt() != 0) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        kTick, until - std::chrono::steady_clock::now()));
  }
  return PendingInterrupt() == 0;
}

}  // namespace

int RunAgent(const Options& options, ServerLauncher& launcher) {
  InterruptBackstop backstop;
  RetryPlan retry(options.retries);
  for (;;) {
    int code = 0;
    try {
      Agent agent(options, launcher, retry);
      code = agent.Run();
      if (!agent.retrying()) return code;
    } catch (const BraidError& e) {
      PrintLine(stderr, "braid: %s", e.what());
      return ExitCodeFor(e.code());
    }
    if (!SleepUnlessInterrupted(retry.delay())) {
      PrintLine(stderr, "braid: %s", InterruptError().what());
      return InterruptExitCode();
    }
  }
}

}  // namespace braid
