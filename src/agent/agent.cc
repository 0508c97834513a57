#include "agent/agent.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "agent/copy_attempt.h"
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

}  // namespace

int RunAgent(const Options& options, ServerLauncher& launcher) {
  InterruptBackstop backstop;
  RetryPlan retry(options.retries);
  for (;;) {
    int code = 0;
    try {
      CopyAttempt attempt(options, launcher, retry);
      code = attempt.Run();
      if (!attempt.retrying()) return code;
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
