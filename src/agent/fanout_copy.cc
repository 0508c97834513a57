#include "agent/star_copy.h"

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
#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "agent/report/progress_format.h"
#include "agent/report/star_report.h"

namespace braid {
namespace {

/// The terminal bar is redrawn at this period.
constexpr double kBarPeriod = 0.25;

/// One destination's copy: its options (the one DST), what it reports, and
/// the thread it runs on.
struct Leg {
  Options options;
  CopyWatch watch;
  RateMeter meter;  ///< the star's thread's alone
  std::thread thread;
};

Options LegOptions(const Options& all, const Endpoint& destination) {
  Options one = all;
  one.destination = destination;
  one.destinations.clear();
  return one;
}

/// The name a destination goes by in lines and --json: as the user typed it.
std::string LegName(const Endpoint& d) {
  return d.is_remote() && !d.user.empty() ? d.user + "@" + d.Display() : d.Display();
}

void RunLeg(Leg& leg, ServerLauncher& launcher) {
  try {
    RunCopyWithRetries(leg.options, launcher, &leg.watch);
  } catch (const std::exception& e) {
    // Nothing else may leave a thread: it would end the whole agent.
    leg.watch.Finish(ExitCodeFor(ErrorCode::kInternal), ErrorCode::kInternal, e.what());
  }
}

/// Every destination's status now; feeds each rate meter.
std::vector<DestinationStatus> Statuses(std::vector<std::unique_ptr<Leg>>& legs, double now_s) {
  std::vector<DestinationStatus> out;
  for (auto& leg : legs) {
    const CopyWatch::State s = leg->watch.Snapshot();
    leg->meter.Add(now_s, s.moved);
    DestinationStatus d;
    d.name = LegName(leg->options.destination);
    d.moved = s.moved;
    d.have = s.have;
    d.skipped = s.skipped;
    d.total = s.total;
    d.rate_Bps = leg->meter.CurrentRate();
    d.seconds = s.data_seconds;
    d.retries = s.retries;
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

}  // namespace

int RunStar(const Options& options, ServerLauncher& launcher) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::atomic<bool> digest_lines_taken{false};
  std::vector<std::unique_ptr<Leg>> legs;
  for (const Endpoint& d : options.destinations) {
    auto leg = std::make_unique<Leg>();
    leg->options = LegOptions(options, d);
    leg->watch.ShareDigestLines(&digest_lines_taken);
    leg->meter.Add(0, 0);
    legs.push_back(std::move(leg));
  }
  for (auto& leg : legs) leg->thread = std::thread(RunLeg, std::ref(*leg), std::ref(launcher));
  StarDisplay display(options.progress_interval);
  std::vector<DestinationStatus> now;
  for (;;) {
    now = Statuses(legs, seconds());
    bool all = true;
    for (const DestinationStatus& d : now) all = all && d.finished;
    if (all) break;
    display.Update(now, seconds());
    std::this_thread::sleep_for(CopyAttempt::kTick);
  }
  for (auto& leg : legs) leg->thread.join();
  display.Finish();
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
  if (options.json) {
    const std::string doc = FormatStarJson(now, TopologyText({TopologyKind::kStar, 0}), seconds());
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    std::fflush(stdout);
  }
  return StarExitCode(now);
}

}  // namespace braid
