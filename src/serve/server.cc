#include "serve/server.h"

#include <malloc.h>
#include <sys/utsname.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <thread>

#include "autostreams/stream_controller.h"
#include "braid/mutex.h"
#include "proto/control_channel.h"
#include "proto/list_budget.h"
#include "session/descriptor_limit.h"
#include "session/packed_list.h"
#include "session/remote_path.h"
#include "sink/sink_session.h"
#include "source/follow_feed.h"
#include "source/source_list.h"
#include "source/source_session.h"
#include "transport/fd_byte_stream.h"
#include "transport/listen_plan.h"
#include "transport/rtt_probe.h"
#include "transport/socket_tuning.h"

namespace braid {
namespace {

constexpr std::size_t kEntriesPerMessage = 4096;
constexpr auto kProgressInterval = std::chrono::milliseconds(200);
constexpr auto kStopGrace = std::chrono::seconds(15);
/// Connects per probe target, and how long one may take (a node that does not
/// answer in time is as good as unmeasured).
constexpr int kProbeTries = 3;
constexpr auto kProbeTimeout = std::chrono::milliseconds(1000);

std::string NodeName() {
  utsname u{};
  return ::uname(&u) == 0 ? std::string(u.nodename) : std::string();
}

/// The address this host was reached on by ssh: the third field of
/// SSH_CONNECTION ("client_ip client_port server_ip server_port").
std::string SshServerAddress() {
  const char* env = std::getenv("SSH_CONNECTION");
  if (env == nullptr) return {};
  std::string s = env;
  std::size_t pos = 0;
  for (int field = 0; field < 2; ++field) {
    pos = s.find(' ', pos);
    if (pos == std::string::npos) return {};
    ++pos;
  }
  std::size_t end = s.find(' ', pos);
  return s.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
}

/// Whether the data streams' congestion control backs off on random loss, as cubic and
/// reno do; bbr does not, and one bbr stream fills a lossy link. Unknown counts as lossy.
bool LossBased(const std::string& asked) {
  const std::string cc = asked.empty() ? DefaultCongestionControl() : asked;
  return cc.rfind("bbr", 0) != 0;
}

/// A flag one thread raises to end another's wait at once.
class Notification {
 public:
  void Notify() BRAID_EXCLUDES(mu_) {
    {
      MutexLock lock(mu_);
      notified_ = true;
    }
    cv_.notify_all();
  }
  /// Waits up to `timeout` for Notify(); true once notified.
  bool WaitFor(std::chrono::steady_clock::duration timeout) BRAID_EXCLUDES(mu_) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    MutexLock lock(mu_);
    while (!notified_ && cv_.wait_until(lock.native(), deadline) == std::cv_status::no_timeout) {
    }
    return notified_;
  }

 private:
  Mutex mu_;
  std::condition_variable cv_;
  bool notified_ BRAID_GUARDED_BY(mu_) = false;
};

/// The main thread reads control messages and handles them; one worker thread
/// runs the session, and beside it a reporter thread sends progress. The
/// fields below say how they share.
class Server {
 public:
  Server(ByteStream& stream, ListLimits limits) : channel_(stream), limits_(limits) {}

  int Run() {
    if (!Handshake()) return 1;
    for (;;) {
      std::optional<ControlMessage> msg;
      try {
        msg = channel_.Receive();
      } catch (const BraidError& e) {
        StopWork("control channel failed: " + std::string(e.what()));
        return 1;
      }
      if (!msg) {
        StopWork("the agent went away");
        return 1;
      }
      if (std::holds_alternative<Bye>(*msg)) {
        JoinWork();
        return 0;
      }
      if (auto* abort = std::get_if<Abort>(&*msg)) {
        StopWork(abort->reason);
        return 1;
      }
      try {
        Handle(*msg);
      } catch (const BraidError& e) {
        SendError(e);
      }
    }
  }

 private:
  bool Handshake() {
    std::optional<ControlMessage> msg;
    try {
      msg = channel_.Receive();
    } catch (const BraidError& e) {
      return false;
    }
    auto* hello = msg ? std::get_if<Hello>(&*msg) : nullptr;
    if (hello == nullptr) return false;
    HelloReply reply;
    reply.host_label = NodeName();
    reply.ssh_address = SshServerAddress();
    if (hello->version != kProtocolVersion) {
      // An agent that reads our versions from a HelloReply words the mismatch
      // itself; an older one reads only Error.
      if (hello->version >= kFirstNamingVersion) {
        channel_.Send(reply);
      } else {
        SendError(BraidError(ErrorCode::kProtocol,
                             "protocol version " + std::to_string(hello->version) +
                                 " is not supported (this braid, " + BraidVersion() + ", speaks " +
                                 std::to_string(kProtocolVersion) +
                                 "); install matching versions"));
      }
      return false;
    }
    label_ = hello->label;
    channel_.Send(reply);
    return true;
  }

  /// Takes `msg` apart where it can (a FileList's entries are moved, not copied).
  void Handle(ControlMessage& msg) {
    if (auto* where = std::get_if<SinkConnect>(&msg)) {
      if (!sink_)
        throw BraidError(ErrorCode::kProtocol, "protocol error: SinkConnect without a sink");
      sink_->Connect(*where);
      return;
    }
    if (worker_.joinable()) {
      throw BraidError(ErrorCode::kProtocol, "protocol error: message during a transfer");
    }
    if (auto* open = std::get_if<SourceOpen>(&msg)) return OpenSource(*open);
    if (auto* list = std::get_if<FileList>(&msg)) return AddEntries(std::move(*list));
    if (auto* start = std::get_if<SourceStart>(&msg)) return StartSource(*start);
    if (auto* open = std::get_if<SinkOpen>(&msg)) return StartSink(*open);
    if (auto* probe = std::get_if<ProbeOpen>(&msg)) return OpenProbe(*probe);
    if (auto* measure = std::get_if<ProbeMeasure>(&msg)) return Measure(*measure);
    throw BraidError(ErrorCode::kProtocol,
                     std::string("protocol error: unexpected ") + MessageName(msg) + " message");
  }

  void OpenSource(const SourceOpen& open) {
    std::vector<std::string> warnings;
    if (!open.follow.empty()) {
      follow_ = std::make_unique<FollowFeed>(open.follow, label_, limits_);
      source_files_ = follow_->TakeList();
      SendList();
      return;
    }
    source_files_ = BuildSourceList(
        {open.paths, open.recursive, open.follow_symlinks, open.device_size, label_,
         open.remote_paths, open.hard_links, open.growing_ms, open.filters, open.command},
        warnings);
    for (const auto& note : source_files_.notes) channel_.Send(Note{note});
    source_files_.notes.clear();
    for (const auto& w : warnings) channel_.Send(Warning{w});
    SendList();
  }

  void SendList() {
    FileList chunk;
    for (std::uint32_t id = 0; id < source_files_.entries.size(); ++id) {
      chunk.entries.push_back(source_files_.entries.Entry(id));
      if (chunk.entries.size() == kEntriesPerMessage) {
        channel_.Send(chunk);
        chunk.entries.clear();
      }
    }
    chunk.last = true;
    chunk.not_listed = source_files_.not_listed;
    channel_.Send(chunk);
  }

  /// Packed as the chunks arrive (session/packed_list): a chunk's FileEntry
  /// objects live only until they are packed.
  void AddEntries(FileList&& list) {
    if (!budget_) {
      budget_.emplace(limits_, label_.empty() ? std::string("the agent")
                                              : "the agent (at the sink on " + label_ + ")");
    }
    // The whole chunk is checked before any of it is kept: a refused list
    // leaves nothing for a SinkOpen that follows to create.
    for (std::size_t i = 0; i < list.entries.size(); ++i) {
      budget_->Add(list.entries[i]);
      if (list.entries[i].id != sink_list_.size() + i) {
        throw BraidError(ErrorCode::kProtocol, "protocol error: file list out of order");
      }
    }
    for (const auto& e : list.entries) sink_list_.Add(e);
  }

  /// A chain is ordered by RTT: listen for the other nodes' probes, where a sink would listen.
  void OpenProbe(const ProbeOpen& open) {
    const ListenPlan plan =
        PlanListen(open.listen_address, SshServerAddress(), InterfaceAddresses(), open.family);
    probe_ = std::make_unique<ProbeListener>(plan.bind, open.port_min, open.port_max);
    channel_.Send(ProbeReady{plan.advertise, probe_->port()});
  }

  /// Each target's connect time, the targets probed one after another so they
  /// do not queue behind each other on this host's link.
  void Measure(const ProbeMeasure& measure) {
    ProbeResult result;
    for (const ProbeTarget& t : measure.targets) {
      result.rtt_us.push_back(MeasureConnectRtt(t.addresses, t.port, kProbeTries, kProbeTimeout));
    }
    channel_.Send(result);
  }

  void StartSource(const SourceStart& start) {
    if (start.params.auto_streams) {
      StreamControllerConfig config;
      config.min_streams = start.params.min_streams;
      config.max_streams = start.params.streams;
      config.polite = start.params.polite;
      config.loss_based = LossBased(start.params.congestion_control);
      controller_ = std::make_unique<StreamController>(config);
      polite_ = start.params.polite;
    }
    source_ = std::make_unique<SourceSession>(std::move(source_files_), start, label_);
    if (follow_) source_->Follow(std::move(follow_));
    if (start.params.reverse) {
      source_->ListenInstead(PlanListen(start.listen_address, SshServerAddress(),
                                        InterfaceAddresses(), start.params.family),
                             [this](const SourceReady& r) { channel_.Send(r); });
    }
    TransferState& state = source_->state();
    worker_ = std::thread([this, &state] {
      RunWork(state, [this] {
        source_->Run([this](const std::string& w) { channel_.Send(Warning{w}); });
      });
    });
  }

  /// A remote target as scp reads it: `~` is the home, said under -v with
  /// where a relative target is.
  std::string ResolveTarget(const SinkOpen& open) {
    if (!open.remote_paths || open.target == "-" || open.command) return open.target;
    const std::string where = label_.empty() ? open.target : label_ + ":" + open.target;
    const std::optional<std::string> target = ExpandTilde(open.target);
    if (!target) {
      throw BraidError(ErrorCode::kTargetUnwritable,
                       where + ": no such user " + SplitTilde(open.target)->user);
    }
    const std::string absolute = AbsoluteForMessage(*target);
    if (absolute != open.target) channel_.Send(Note{where + " is " + absolute});
    return *target;
  }

  void StartSink(const SinkOpen& open) {
    // A server probed for a chain's RTTs is then the copy's sink: the probes
    // are over, and their port may be the one -Z leaves for the sink.
    probe_.reset();
    SinkOpen resolved = open;
    resolved.target = ResolveTarget(open);
    ListenPlan plan;
    if (!open.params.reverse) {
      plan = PlanListen(open.listen_address, SshServerAddress(), InterfaceAddresses(),
                        open.params.family);
      resolved.listen_address = plan.bind;
    }
    // The FileList chunks were decoded into FileEntry vectors of up to 7.5 MiB
    // each, freed once packed; glibc keeps such freed memory resident for the
    // next allocation. Given back now, before the session adds its own (the
    // list's shape check): 6.5 MiB of a million-entry list's 61 MiB peak.
    ::malloc_trim(0);
    sink_ = std::make_unique<SinkSession>(std::move(sink_list_), resolved, label_);
    sink_->Advertise(plan.advertise);
    TransferState& state = sink_->state();
    worker_ = std::thread([this, &state] {
      RunWork(state, [this] {
        SinkCallbacks cb;
        cb.ready = [this](SinkReady r) { channel_.Send(ControlMessage(std::move(r))); };
        cb.files_done = [this](const std::vector<FileDone>& done) {
          std::vector<ControlMessage> messages(done.begin(), done.end());
          channel_.Send(messages);
        };
        cb.warn = [this](const std::string& w) { channel_.Send(Warning{w}); };
        cb.kept = [this](const Kept& k) { channel_.Send(k); };
        sink_->Run(cb);
      });
    });
  }

  /// Runs a session with a progress reporter beside it, then reports the end.
  template <typename Fn>
  void RunWork(TransferState& state, Fn fn) {
    // The reporter waits on `done`, not in a sleep: a session that ends stops
    // it at once, rather than costing every copy up to one interval (200 ms
    // here; a whole command was quantised in 0.2 s steps).
    Notification done;
    auto stop_reporter = [&done](std::thread& reporter) {
      done.Notify();
      reporter.join();
    };
    auto progress = [&] {
      Progress p;
      p.bytes = state.bytes.load() + state.same_bytes.load();  // both are done
      p.files_done = state.files_done.load();
      p.streams = state.streams.load();
      if (sink_) p.current_path = sink_->ArrivingPath();
      if (source_) {
        p.stream_samples = source_->StreamSamples();
        p.active_streams = static_cast<std::uint16_t>(source_->active_streams());

        if (controller_) Steer(p);
      }
      return p;
    };
    std::thread reporter([&] {
      while (!done.WaitFor(kProgressInterval)) {
        try {
          channel_.Send(progress());
        } catch (const BraidError&) {
          return;
        }
      }
    });
    try {
      fn();
      stop_reporter(reporter);
      // The final counts, so the agent's per-stream totals are exact, not 200 ms old.
      channel_.Send(progress());
      channel_.Send(Done{state.bytes.load(), state.files_done.load(), state.streams.load(),
                         state.wire_bytes.load(), state.same_bytes.load()});
    } catch (const BraidError& e) {
      stop_reporter(reporter);
      if (e.code() != ErrorCode::kInterrupted) SendError(e);
    }
    work_done_.Notify();
  }

  /// -s auto: the controller sees what the streams did and says how many
  /// should carry data next; its reasons go to the agent for -v.
  void Steer(Progress& p) {
    // Throughput is what the peer acknowledged: bytes written only filled a
    // socket buffer, which with large windows holds seconds of data.
    std::vector<StreamSample> acked = p.stream_samples;
    for (StreamSample& s : acked) s.bytes = s.acked;
    const double waited = source_->InputWaitSeconds();
    StreamDecision d = controller_->Update(std::chrono::steady_clock::now(), acked,
                                           p.active_streams, waited - input_waited_s_);
    input_waited_s_ = waited;
    source_->SetActiveStreams(d.streams);
    if (polite_) source_->SetPace(d.pace_Bps);
    if (d.news) p.controller_note = d.reason.substr(0, 256);
  }

  void SendError(const BraidError& e) {
    try {
      channel_.Send(ErrorMessage{e.code(), e.what()});
    } catch (const BraidError&) {
      // The agent is gone; nobody is left to tell.
    }
  }

  void StopWork(const std::string& why) {
    if (source_) source_->Abort(why);
    if (sink_) sink_->Abort(why);
    // A thread stuck writing to a pipe nobody reads cannot be woken; it must
    // not keep this process (and the agent waiting on it) alive forever.
    if (worker_.joinable() && !work_done_.WaitFor(kStopGrace)) {
      std::fprintf(stderr, "braid --serve: a transfer thread did not stop; exiting\n");
      std::_Exit(1);
    }
    JoinWork();
  }
  void JoinWork() {
    if (worker_.joinable()) worker_.join();
  }

  /// Every thread sends; ControlChannel serialises its writers itself.
  ControlChannel channel_;
  std::string label_;                 ///< set by Handshake, before any other thread starts
  const ListLimits limits_;           ///< --max-entries, --max-list-bytes, from the command line
  std::optional<ListBudget> budget_;  ///< the sink's count of the list the agent relays
  /// Main thread only: filled by messages, moved into the session before the worker starts.
  SourceList source_files_;
  /// A hop of a chain: the feed the list came from, until the session takes it.
  std::unique_ptr<FollowFeed> follow_;
  PackedList sink_list_;  ///< as source_files_: FileList's entries
  /// The pointers are set on the main thread before the worker starts and
  /// not changed while it runs (Handle refuses a second session); the
  /// sessions themselves are thread-safe where the main thread calls them
  /// (Abort, SinkSession::Connect) and the reporter does (the stream counts).
  std::unique_ptr<SourceSession> source_;
  /// -s auto; null for a fixed count. Set as source_; used by the reporter only.
  std::unique_ptr<StreamController> controller_;
  double input_waited_s_ = 0;  ///< the source's input wait at the last Steer; the reporter's
  bool polite_ = false;        ///< set as source_; read by the reporter
  std::unique_ptr<SinkSession> sink_;     ///< as source_
  std::unique_ptr<ProbeListener> probe_;  ///< main thread only: a chain's RTT probes
  std::thread worker_;                    ///< main thread only (started, joined)
  Notification work_done_;                ///< the worker's session has ended (StopWork's grace)
};

}  // namespace

int RunServer(ByteStream& control, ListLimits limits) { return Server(control, limits).Run(); }

int RunServerOnFds(int read_fd, int write_fd, ListLimits limits) {
  // A sink of many small files holds thousands of descriptors at once.
  RaiseDescriptorLimit();
  FdByteStream stream(read_fd, write_fd,
                      {"control channel read failed", "control channel write failed"});
  return RunServer(stream, limits);
}

}  // namespace braid
