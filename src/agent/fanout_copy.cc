#include "agent/fanout_copy.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "agent/copy_attempt.h"
#include "agent/copy_retries.h"
#include "agent/copy_watch.h"
#include "agent/fanout/hop_choice.h"
#include "agent/fanout/layout_planner.h"
#include "agent/fanout/layouts.h"
#include "agent/fanout/link_calibration.h"
#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "agent/report/progress_format.h"
#include "agent/report/star_report.h"
#include "agent/rtt_probe.h"
#include "session/feed_socket.h"

namespace braid {
namespace {

/// The terminal bar is redrawn at this period.
constexpr double kBarPeriod = 0.25;

/// How long a copy whose feed ended waits to see the node it followed stop
/// or begin again, before it takes the failure as its own.
constexpr auto kMoveWait = std::chrono::seconds(10);
/// How often a copy looks at the node above it while it waits for it: each
/// hop of a chain may wait once, so this is paid once per hop.
constexpr auto kLookAgain = std::chrono::milliseconds(10);

/// One destination's copy: its options (the one DST), what it reports, where
/// it takes its data from, and the thread it runs on. All but the watch (which
/// locks itself), the meter and the thread are set before any thread starts.
struct Leg {
  Options options;
  CopyWatch watch;
  RateMeter meter;   ///< the star's thread's alone
  int node = 0;      ///< its own node: i + 1 for destination i
  int parent = 0;    ///< the layout's node above it: 0 the source, i + 1 destination i
  double share = 0;  ///< the rate the layout's model predicts for it, as a share of a host's link
  /// The node its latest attempt follows (LegSource writes, the runner's thread reads).
  std::atomic<int> followed{0};
  /// Its sink's server, if the RTT probes started it; its first attempt takes it.
  std::unique_ptr<StartedServer> started_sink;
  std::thread thread;
};

/// Where one destination's copy takes its data: the nearest node above it
/// in the layout whose copy still runs (one that stopped is bypassed; one
/// that finished has closed its feed), or the sources.
class LegSource final : public HopSource {
 public:
  LegSource(Leg& leg, const std::vector<std::unique_ptr<Leg>>& legs) : leg_(leg), legs_(legs) {
    parents_.push_back(-1);
    for (const auto& each : legs_) parents_.push_back(each->parent);
  }

  void Choose(Options& options) override {
    followed_ =
        NodeToFollow(parents_, leg_.node, [this](int node) { return Above(node).finished; });
    leg_.followed = followed_;
    options.follow_from.reset();
    options.follow_token.clear();
    if (followed_ == 0) return;
    const Leg& above = *legs_[static_cast<std::size_t>(followed_ - 1)];
    options.follow_from = above.options.destination;
    options.follow_token = above.options.forward_token;
    attempt_ = above.watch.Snapshot().attempts;
  }

  bool AwaitFeed() override {
    if (followed_ == 0) return true;
    for (;;) {
      const CopyWatch::State s = Above(followed_);
      // Its Finish clears ready: one that finished has closed its feed.
      if (s.finished) return false;
      if (s.ready) {
        attempt_ = s.attempts;  // the attempt that serves the feed, not the one chosen in
        return true;
      }
      if (PendingInterrupt() != 0) return false;
      std::this_thread::sleep_for(kLookAgain);
    }
  }

  bool Stopped() const override {
    if (followed_ == 0) return false;
    const CopyWatch::State s = Above(followed_);
    // One that finished complete sent its followers Done: they need nothing more of it.
    return (s.finished && s.exit_code != 0) || s.attempts != attempt_;
  }

  bool Moved(const BraidError& error, bool from_source) override {
    // The copy's own sink, or the agent, failing is the copy's own failure. Its
    // source lost the feed (15), or read what the node above wrote and found it
    // differs from the first source's (13), or its data stopped coming while
    // its sink still reports (17; a node above that froze stalls its hop
    // too): the node above may have stopped.
    const ErrorCode code = error.code();
    if (followed_ == 0 || !from_source ||
        (code != ErrorCode::kPeerLost && code != ErrorCode::kIntegrity &&
         code != ErrorCode::kStalled)) {
      return false;
    }
    const auto until = std::chrono::steady_clock::now() + kMoveWait;
    while (std::chrono::steady_clock::now() < until && PendingInterrupt() == 0) {
      // One that finished complete has closed its feed too (a hop that moved
      // to it after a bypass may come too late): the next node up will do.
      if (Stopped() || Above(followed_).finished) return true;
      std::this_thread::sleep_for(kLookAgain);
    }
    return false;
  }

 private:
  CopyWatch::State Above(int node) const {
    return legs_[static_cast<std::size_t>(node - 1)]->watch.Snapshot();
  }

  Leg& leg_;
  const std::vector<std::unique_ptr<Leg>>& legs_;
  std::vector<int> parents_;  ///< the layout's parent of every node
  int followed_ = 0;          ///< the node the latest attempt follows
  int attempt_ = 0;           ///< that node's attempt it followed
};

Options LegOptions(const Options& all, const Endpoint& destination) {
  Options one = all;
  one.destination = destination;
  one.destinations.clear();
  return one;
}

void RunLeg(Leg& leg, const std::vector<std::unique_ptr<Leg>>& legs, ServerLauncher& launcher) {
  try {
    LegSource source(leg, legs);
    RunCopyWithRetries(leg.options, launcher, &leg.watch, leg.parent == 0 ? nullptr : &source,
                       std::move(leg.started_sink));
  } catch (const std::exception& e) {
    // Nothing else may leave a thread: it would end the whole agent.
    leg.watch.Finish(ExitCodeFor(ErrorCode::kInternal), ErrorCode::kInternal, e.what());
  }
}

/// Every destination's status now; feeds each rate meter.
std::vector<DestinationStatus> Statuses(std::vector<std::unique_ptr<Leg>>& legs, double now_s,
                                        const LinkCalibration& calibration) {
  std::vector<DestinationStatus> out;
  for (auto& leg : legs) {
    const CopyWatch::State s = leg->watch.Snapshot();
    leg->meter.Add(now_s, s.moved);
    DestinationStatus d;
    d.name = leg->options.destination.AsTyped();
    d.moved = s.moved;
    d.have = s.have;
    d.skipped = s.skipped;
    d.total = s.total;
    d.rate_Bps = leg->meter.CurrentRate();
    d.seconds = s.data_seconds;
    if (std::optional<double> link = calibration.link_Bps()) d.predicted_Bps = leg->share * *link;
    d.retries = s.retries;
    const int from = leg->followed.load();
    if (from > 0) d.from = legs[static_cast<std::size_t>(from - 1)]->options.destination.AsTyped();
    d.finished = s.finished;
    d.exit_code = s.exit_code;
    d.error_code = s.error_code;
    d.error = s.error;
    out.push_back(std::move(d));
  }
  return out;
}

/// -P lines, or a bar on a terminal, or nothing: as one copy shows its own.
class StarDisplay {
 public:
  explicit StarDisplay(double interval_s)
      : interval_s_(interval_s),
        bar_(interval_s <= 0 && ::isatty(STDERR_FILENO)),
        next_s_(interval_s > 0 ? interval_s : 0) {}

  void Update(const std::vector<DestinationStatus>& now, double now_s) {
    if ((interval_s_ <= 0 && !bar_) || now_s < next_s_) return;
    const std::string text = FormatStarProgress(now, now_s);
    if (bar_) {
      // Padded so a shorter line overwrites all of the last one.
      WriteBar(stderr, text + std::string(text.size() < last_ ? last_ - text.size() : 0, ' '));
      last_ = text.size();
      next_s_ = now_s + kBarPeriod;
    } else {
      PrintLine(stderr, "braid: %s", text.c_str());
      next_s_ += interval_s_;
      if (next_s_ < now_s) next_s_ = now_s + interval_s_;
    }
    std::fflush(stderr);
  }

  void Finish() {
    if (last_ > 0) std::fputc('\n', stderr);
  }

 private:
  double interval_s_;
  bool bar_;
  double next_s_;
  std::size_t last_ = 0;  ///< the bar's last width; 0 if none was drawn
};

/// -v: the layout as laid out, a hop a line with its measured RTT and its
/// share of a host's link (the model's rate, in the unit LinkCalibration measures).
void SayLayout(const Options& options, const FanoutNetwork& network, const FanoutPlan& plan) {
  // The star and a copy to one are laid out without probes.
  const bool probed = plan.topology.kind != TopologyKind::kStar && plan.edges.size() > 1;
  PrintLine(stderr, "braid: layout %s%s; each hop's share of a host's link:",
            TopologyText(plan.topology).c_str(), probed ? ", ordered by RTT" : "");
  for (const FanoutEdge& edge : plan.edges) {
    const auto parent = static_cast<std::size_t>(edge.parent);
    const auto child = static_cast<std::size_t>(edge.child);
    const std::optional<double> rtt = network.rtt.Between(parent, child);
    const std::string from =
        edge.parent == 0 ? std::string("the source") : options.destinations[parent - 1].AsTyped();
    char ms[32] = "unknown";
    if (rtt) std::snprintf(ms, sizeof ms, "%.2f ms", *rtt);
    PrintLine(stderr, "braid:   %s -> %s: RTT %s, share %.2f", from.c_str(),
              options.destinations[child - 1].AsTyped().c_str(), ms, edge.rate);
  }
}

/// The layout the copy runs. Before the copy only RTTs can be known, so the
/// model takes every host's link as alike (one unit): then the chain (or, as
/// asked, a tree or the star) is laid out over the destinations ordered by
/// the RTTs between them (agent/rtt_probe), so the hosts of one site are
/// neighbours and the wide area is crossed once per site; a star needs no
/// order. The servers the probes started become the sinks in `started_sinks`.
FanoutPlan PlanLayout(const Options& options, ServerLauncher& launcher,
                      std::vector<std::unique_ptr<StartedServer>>& started_sinks) {
  const std::size_t nodes = options.destinations.size() + 1;
  FanoutNetwork network;
  network.rtt = RttMatrix(nodes);
  if (options.topology.kind != TopologyKind::kStar && nodes > 2) {
    network.rtt = MeasureRtts(options, launcher, &started_sinks);
  }
  const std::vector<int> sites = InferSites(network.rtt);
  for (std::size_t i = 0; i < nodes; ++i) {
    FanoutNode node;
    node.name = i == 0 ? "the source" : options.destinations[i - 1].AsTyped();
    node.site = sites[i];
    node.capacity.net_in = 1;
    node.capacity.net_out = 1;
    network.nodes.push_back(std::move(node));
  }
  // Planned on the coarse times, so noise within a site keeps the order given there.
  FanoutNetwork coarse = network;
  coarse.rtt = Coarsened(network.rtt);
  FanoutPlan plan = PlanFanout(coarse, options.topology);
  if (options.verbose > 0) SayLayout(options, network, plan);
  return plan;
}

/// One leg per destination, each told its node above and, when any leg follows it, its feed.
std::vector<std::unique_ptr<Leg>> MakeLegs(const Options& options, ServerLauncher& launcher,
                                           std::atomic<bool>& digest_lines_taken,
                                           FanoutPlan& plan) {
  std::vector<std::unique_ptr<StartedServer>> started_sinks;
  plan = PlanLayout(options, launcher, started_sinks);
  started_sinks.resize(options.destinations.size());
  std::vector<std::unique_ptr<Leg>> legs;
  for (const Endpoint& d : options.destinations) {
    auto leg = std::make_unique<Leg>();
    leg->started_sink = std::move(started_sinks[legs.size()]);
    leg->options = LegOptions(options, d);
    leg->node = static_cast<int>(legs.size()) + 1;
    leg->parent = plan.parent[legs.size() + 1];
    for (const FanoutEdge& edge : plan.edges) {
      if (edge.child == leg->node) leg->share = edge.rate;
    }
    leg->watch.ShareDigestLines(&digest_lines_taken);
    leg->meter.Add(0, 0);
    legs.push_back(std::move(leg));
  }
  for (const auto& leg : legs) {
    if (leg->parent == 0) continue;
    Leg& above = *legs[static_cast<std::size_t>(leg->parent - 1)];
    if (!above.options.forward_token.empty()) continue;
    above.options.forward_token = NewFeedToken();
    // Its followers (its children in the layout, and any leg that moved to it
    // after a bypass) have their list once their sinks answered; then its Done
    // is all they need.
    above.watch.HoldFeedFor([&legs, node = leg->parent] {
      for (const auto& child : legs) {
        if (child->parent != node && child->followed.load() != node) continue;
        const CopyWatch::State s = child->watch.Snapshot();
        if (!s.finished && !s.ready) return false;
      }
      return true;
    });
  }
  return legs;
}

/// What the copy's first hops moved, summed: the bytes LinkCalibration measures.
std::uint64_t SourceChildrenBytes(const std::vector<std::unique_ptr<Leg>>& legs,
                                  const std::vector<DestinationStatus>& now) {
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < legs.size(); ++i) {
    if (legs[i]->parent == 0) bytes += now[i].moved;
  }
  return bytes;
}

/// -v, once: what the first hops measured, and so what the model predicts.
void SayPrediction(const std::vector<DestinationStatus>& now, double link_Bps) {
  double least = 0;
  double most = 0;
  for (const DestinationStatus& d : now) {
    least = least > 0 ? std::min(least, d.predicted_Bps) : d.predicted_Bps;
    most = std::max(most, d.predicted_Bps);
  }
  const std::string range =
      least == most ? FormatRate(least) : FormatRate(least) + " to " + FormatRate(most);
  PrintLine(stderr,
            "braid: the first hops measured a host's link at %s: the layout's model predicts "
            "%s to each destination",
            FormatRate(link_Bps).c_str(), range.c_str());
}

/// Runs every leg on its thread until all finished; draws the progress and
/// measures the link as the first hops' data arrives. The statuses at the end.
std::vector<DestinationStatus> WatchLegs(const Options& options,
                                         std::vector<std::unique_ptr<Leg>>& legs,
                                         ServerLauncher& launcher) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (auto& leg : legs) {
    leg->thread = std::thread(RunLeg, std::ref(*leg), std::cref(legs), std::ref(launcher));
  }
  StarDisplay display(options.progress_interval);
  LinkCalibration calibration;
  std::vector<DestinationStatus> now;
  for (;;) {
    const bool measured = calibration.link_Bps().has_value();
    now = Statuses(legs, seconds(), calibration);
    calibration.Add(seconds(), SourceChildrenBytes(legs, now));
    if (!measured && calibration.link_Bps() && options.verbose > 0) {
      SayPrediction(Statuses(legs, seconds(), calibration), *calibration.link_Bps());
    }
    bool all = true;
    for (const DestinationStatus& d : now) all = all && d.finished;
    if (all) break;
    display.Update(now, seconds());
    std::this_thread::sleep_for(CopyAttempt::kTick);
  }
  for (auto& leg : legs) leg->thread.join();
  display.Finish();
  return now;
}

/// -v: each destination's rate, measured and as the model predicted it.
void SayRates(const std::vector<DestinationStatus>& now) {
  for (const DestinationStatus& d : now) {
    if (d.failed()) continue;
    const double measured = d.seconds > 0 ? static_cast<double>(d.moved) / d.seconds : 0;
    const std::string predicted = d.predicted_Bps > 0
                                      ? FormatRate(d.predicted_Bps) + " predicted"
                                      : std::string("not predicted (too short to measure)");
    PrintLine(stderr, "braid: %s: %s measured, %s", d.name.c_str(), FormatRate(measured).c_str(),
              predicted.c_str());
  }
}

}  // namespace

int RunFanout(const Options& options, ServerLauncher& launcher) {
  const auto start = std::chrono::steady_clock::now();
  std::atomic<bool> digest_lines_taken{false};
  FanoutPlan plan;
  std::vector<std::unique_ptr<Leg>> legs = MakeLegs(options, launcher, digest_lines_taken, plan);
  const std::vector<DestinationStatus> now = WatchLegs(options, legs, launcher);
  if (PendingInterrupt() != 0) {
    // Each copy stopped for it; the user needs to hear it once.
    PrintLine(stderr, "braid: %s", InterruptError().what());
    return InterruptExitCode();
  }
  bool failed = false;
  for (const DestinationStatus& d : now) {
    if (!d.failed()) continue;
    failed = true;
    PrintLine(stderr, "braid: %s", StarFailureLine(d).c_str());
  }
  if (failed) PrintLine(stderr, "braid: %s", StarSummaryLine(now).c_str());
  if (options.verbose > 0) SayRates(now);
  if (options.json) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string doc = FormatStarJson(now, TopologyText(plan.topology), seconds);
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    std::fflush(stdout);
  }
  return StarExitCode(now);
}

}  // namespace braid
