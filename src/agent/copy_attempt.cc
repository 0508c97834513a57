#include "agent/copy_attempt.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "agent/file_list_check.h"
#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "agent/report/progress_display.h"
#include "agent/report/transfer_report.h"
#include "agent/retry_plan.h"
#include "agent/server_end.h"
#include "agent/stall_watch.h"
#include "agent/streams_to_connect.h"
#include "proto/list_budget.h"
#include "transport/socket_tuning.h"

namespace braid {

int CopyAttempt::Run() {
  Endpoint source = CheckSources();
  // A local end runs on this kernel, so a congestion control it lacks is known now,
  // before any ssh session; remote ends check their own when the transfer starts.
  if (!source.is_remote() || !options_.destination.is_remote()) {
    CheckCongestionControl(options_.congestion_control);
  }
  if (watch_) watch_->BeginAttempt();
  try {
    if (TransferReport::Wanted(options_) && watch_ == nullptr) {
      report_ = std::make_unique<TransferReport>(options_, retry_.retries() > 0);
    }
    source_ = std::make_unique<ServerEnd>(Side::kSource, source, options_, launcher_, events_);
    if (options_.follow_token.empty()) {
      // The source walks its tree while the sink's ssh session comes up; its
      // list waits in the event queue until Transfer reads it.
      OpenSource();
      OpenSink();
    } else {
      // A hop logs in while the nodes above it start, so a chain's start-up
      // costs one login, not one per hop; only its feed must wait.
      OpenSink();
      AwaitFeed();
      OpenSource();
    }
    Transfer();
  } catch (const BraidError& e) {
    return Fail(e);
  }
  source_->Close(std::nullopt);
  // A sink that forwards keeps its feed until the hops below it have attached.
  if (watch_) watch_->AwaitFollowers();
  sink_->Close(std::nullopt);
  Report();
  return not_listed_ > 0 ? ExitCodeFor(ErrorCode::kPartial) : 0;
}

Endpoint CopyAttempt::CheckSources() const {
  if (options_.follow_from) return *options_.follow_from;
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
  if (options_.destination.is_stdio() && (options_.json || options_.json_stream)) {
    throw BraidError(ErrorCode::kUsage, std::string(options_.json ? "--json" : "--json-stream") +
                                            " prints on stdout, so DST cannot be '-'");
  }
  return first;
}

double CopyAttempt::Elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

double CopyAttempt::DataSeconds() const { return data_start_s_ ? Elapsed() - *data_start_s_ : 0; }

AgentEvent CopyAttempt::Next() {
  for (;;) {
    ThrowIfInterrupted();
    if (upstream_stopped_ && upstream_stopped_()) UpstreamStopped();
    if (stall_) {
      const auto now = std::chrono::steady_clock::now();
      if (auto why = stall_->Check(now)) {
        // A sink that went silent is this copy's own; data that stopped coming
        // while both report is the source's side (for a hop, the node above).
        failed_side_ =
            stall_->Silent(static_cast<int>(Side::kSink), now) ? Side::kSink : Side::kSource;
        throw BraidError(ErrorCode::kStalled, *why);
      }
    }
    std::optional<AgentEvent> ev = events_.PopFor(kTick);
    if (progress_) progress_->Update(DataSeconds(), bytes_, files_done_, current_file_);
    if (!ev) continue;
    if (stall_) stall_->OnMessage(static_cast<int>(ev->side), std::chrono::steady_clock::now());
    ServerEnd& end = ev->side == Side::kSource ? *source_ : *sink_;
    failed_side_ = ev->side;  // if what follows throws
    if (ev->error) throw *ev->error;
    if (!ev->message) throw end.DescribeEnd();
    if (auto* err = std::get_if<ErrorMessage>(&*ev->message)) {
      throw BraidError(err->code, err->message);
    }
    if (auto* warn = std::get_if<Warning>(&*ev->message)) {
      PrintLine(stderr, "braid: warning: %s", warn->message.c_str());
      continue;
    }
    if (auto* note = std::get_if<Note>(&*ev->message)) {
      if (options_.verbose > 0) PrintLine(stderr, "braid: %s", note->message.c_str());
      continue;
    }
    if (auto* kept = std::get_if<Kept>(&*ev->message)) {
      kept_ = *kept;
      continue;
    }
    failed_side_.reset();
    return std::move(*ev);
  }
}

void CopyAttempt::Unexpected(const AgentEvent& ev) {
  throw BraidError(ErrorCode::kProtocol, std::string("protocol error: unexpected ") +
                                             MessageName(*ev.message) + " from the " +
                                             (ev.side == Side::kSource ? "source" : "sink"));
}

void CopyAttempt::OpenSink() {
  if (started_sink_) {
    started_sink_->end->Redirect(events_);
    sink_ = std::move(started_sink_->end);
    started_sink_.reset();
    return;
  }
  sink_ =
      std::make_unique<ServerEnd>(Side::kSink, options_.destination, options_, launcher_, events_);
}

void CopyAttempt::AwaitFeed() {
  if (feed_up_ && !feed_up_()) {
    ThrowIfInterrupted();
    UpstreamStopped();
  }
}

void CopyAttempt::UpstreamStopped() {
  failed_side_ = Side::kSource;
  throw BraidError(ErrorCode::kPeerLost, options_.follow_from->AsTyped() +
                                             ", which this copy's data comes from, stopped");
}

void CopyAttempt::OpenSource() {
  SourceOpen open;
  if (!options_.follow_token.empty()) {
    open.follow = options_.follow_token;
    source_->Send(open);
    return;
  }
  for (const auto& s : options_.sources) open.paths.push_back(s.path);
  open.recursive = options_.recursive;
  open.follow_symlinks = options_.follow_symlinks;
  open.device_size = options_.size;
  open.remote_paths = source_->is_remote();
  open.hard_links = options_.hard_links;
  open.growing_ms = static_cast<std::uint32_t>(options_.growing * 1000);
  open.filters = options_.filters;
  open.command = (options_.pipes & kPipeIn) != 0;
  source_->Send(open);
}

void CopyAttempt::Transfer() {
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
  data_start_s_ = Elapsed();
  if (report_) report_->Start(Elapsed(), files_, total_);
  StartStallWatch();
  WatchDataPhase();
  stall_.reset();
  data_seconds_ = DataSeconds();
  progress_->Complete(data_seconds_, bytes_, files_done_);
  if (watch_) {
    watch_->OnBytes(bytes_);
    watch_->OnAttemptEnd(data_seconds_);
  }
  if (report_) report_->Finish(Elapsed(), bytes_);
}

TransferParams CopyAttempt::MakeParams() const {
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
  params.direct = options_.direct;
  params.sparse_zeros = options_.sparse_zeros;
  return params;
}

SinkOpen CopyAttempt::MakeSinkOpen(const TransferParams& params) const {
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
  sink_open.existing = options_.delta           ? ExistingRule::kDelta
                       : options_.omit_existing ? ExistingRule::kOmitExisting
                       : options_.size_only     ? ExistingRule::kSizeOnly
                                                : ExistingRule::kQuickCheck;
  sink_open.keep_partial = !options_.remove_partial;
  sink_open.fsync = options_.fsync;
  sink_open.remote_paths = sink_->is_remote();
  sink_open.command = (options_.pipes & kPipeOut) != 0;
  sink_open.forward = options_.forward_token;
  return sink_open;
}

SourceStart CopyAttempt::MakeSourceStart(SinkReady ready, const TransferParams& params) const {
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

void CopyAttempt::ConnectReverse() {
  SourceReady listening = WaitForSource();
  if (options_.verbose > 0) {
    PrintLine(stderr, "braid: -z: source listening on %s port %u",
              listening.addresses.front().c_str(), listening.port);
  }
  sink_->Send(SinkConnect{listening.addresses, listening.port});
}

void CopyAttempt::StartStallWatch() {
  if (options_.stall_timeout <= 0) return;
  stall_.emplace(std::chrono::duration_cast<StallWatch::Clock::duration>(
                     std::chrono::duration<double>(options_.stall_timeout)),
                 std::chrono::steady_clock::now(),
                 std::array<std::string, 2>{EndName(*source_, "source"), EndName(*sink_, "sink")},
                 // A pipe's producer may pause; with -E the source reads what the sink
                 // kept (to hash it) without sending any of it.
                 stream_source_ || (options_.hash != HashAlgorithm::kNone && skipped_bytes_ > 0));
}

void CopyAttempt::WatchDataPhase() {
  std::optional<std::uint64_t> to_send = total_;
  if (to_send) *to_send -= std::min(*to_send, skipped_bytes_);
  // One of many destinations: the star shows them all on one line.
  progress_ = std::make_unique<ProgressDisplay>(
      watch_ ? ProgressDisplay::kSilent : options_.progress_interval, to_send, files_);
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
        same_bytes_ = done->same_bytes;
      } else {
        source_done = true;
        streams_ = std::max(streams_, done->streams);
      }
    } else {
      Unexpected(ev);
    }
  }
}

void CopyAttempt::OnProgress(Side side, const Progress& p) {
  if (stall_) {
    stall_->OnProgress(static_cast<int>(side), p.bytes, p.files_done,
                       std::chrono::steady_clock::now());
  }
  if (side == Side::kSink) {
    bytes_ = p.bytes;
    files_done_ = std::min<std::uint64_t>(files_, files_skipped_ + p.files_done);
    current_file_ = p.current_path;
    if (watch_) watch_->OnBytes(bytes_);
  } else {
    max_active_ = std::max(max_active_, p.active_streams);
  }
  if (!p.controller_note.empty() && options_.verbose > 0) {
    PrintLine(stderr, "braid: streams: %s", p.controller_note.c_str());
  }
  streams_ = std::max(streams_, p.streams);
  if (report_) report_->OnProgress(Elapsed(), side == Side::kSource, p, bytes_);
}

std::uint16_t CopyAttempt::StreamsWorthConnecting(const TransferParams& params) const {
  if (!options_.streams_auto) return params.streams;
  return static_cast<std::uint16_t>(
      StreamsToConnect(total_, params.block_size, params.min_streams, params.streams));
}

std::string CopyAttempt::EndName(const ServerEnd& end, const char* role) {
  return end.is_remote() ? std::string("the ") + role + " on " + end.label()
                         : std::string("the local ") + role;
}

void CopyAttempt::ReceiveFileList() {
  std::optional<std::uint64_t> total = 0;
  std::vector<std::string> asked;
  // A command's output is listed under the name "pipe".
  for (const auto& s : options_.sources) {
    asked.push_back((options_.pipes & kPipeIn) != 0 ? "pipe" : s.path);
  }
  // A hop of a chain relays the first source's list, checked as that was.
  const bool remote_paths =
      options_.follow_from ? options_.sources.front().is_remote() : source_->is_remote();
  FileListCheck check(asked, options_.recursive, remote_paths);
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
    not_listed_ += list->not_listed;
    sink_->Send(*ev.message);  // the message itself: a FileList converted would be copied
    if (list->last) break;
  }
  total_ = total;
}

SourceReady CopyAttempt::WaitForSource() {
  for (;;) {
    AgentEvent ev = Next();
    if (auto* r = std::get_if<SourceReady>(&*ev.message); r && ev.side == Side::kSource) {
      return *r;
    }
    if (std::holds_alternative<Progress>(*ev.message)) continue;
    Unexpected(ev);
  }
}

SinkReady CopyAttempt::WaitForReady() {
  for (;;) {
    AgentEvent ev = Next();
    if (auto* r = std::get_if<SinkReady>(&*ev.message); r && ev.side == Side::kSink) return *r;
    if (std::holds_alternative<Progress>(*ev.message)) continue;
    Unexpected(ev);
  }
}

}  // namespace braid
