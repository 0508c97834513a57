#include "agent/copy_retries.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "agent/copy_attempt.h"
#include "agent/copy_watch.h"
#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "agent/retry_plan.h"

namespace braid {
namespace {

/// Waits `delay` in short slices; false if an interrupt came first.
bool SleepUnlessInterrupted(std::chrono::milliseconds delay) {
  const auto until = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < until) {
    if (PendingInterrupt() != 0) return false;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        CopyAttempt::kTick, until - std::chrono::steady_clock::now()));
  }
  return PendingInterrupt() == 0;
}

/// The outcome, told to the watch (if any), and the exit status.
int Finish(CopyWatch* watch, int code, const std::optional<BraidError>& error) {
  if (watch != nullptr) {
    if (code == ExitCodeFor(ErrorCode::kPartial) && !error) {
      watch->Finish(code, ErrorCode::kPartial, "some source entries were not copied");
    } else if (code == 0 || !error) {
      watch->Finish(code, code == 0 ? ErrorCode::kOk : ErrorCode::kInternal, "");
    } else {
      watch->Finish(code, error->code(), error->what());
    }
  }
  return code;
}

}  // namespace

int RunCopyWithRetries(const Options& options, ServerLauncher& launcher, CopyWatch* watch,
                       HopSource* hop, std::unique_ptr<StartedServer> started_sink) {
  RetryPlan retry(options.retries);
  Options chosen = options;
  for (;;) {
    try {
      if (hop != nullptr) hop->Choose(chosen);
      CopyAttempt attempt(chosen, launcher, retry, watch);
      if (started_sink) attempt.UseStartedSink(std::move(started_sink));
      if (hop != nullptr) {
        attempt.FollowWhen([hop] { return hop->AwaitFeed(); });
        attempt.StopWhen([hop] { return hop->Stopped(); });
      }
      const int code = attempt.Run();
      if (code != 0 && hop != nullptr && attempt.error() &&
          hop->Moved(*attempt.error(), attempt.source_failed())) {
        // Bypassed: the node above stopped, not this copy; its retries stay whole.
        retry = RetryPlan(options.retries);
        continue;
      }
      if (!attempt.retrying()) return Finish(watch, code, attempt.error());
    } catch (const BraidError& e) {
      if (watch == nullptr) PrintLine(stderr, "braid: %s", e.what());
      return Finish(watch, ExitCodeFor(e.code()), e);
    }
    if (!SleepUnlessInterrupted(retry.delay())) {
      if (watch == nullptr) PrintLine(stderr, "braid: %s", InterruptError().what());
      return Finish(watch, InterruptExitCode(), InterruptError());
    }
  }
}

}  // namespace braid
