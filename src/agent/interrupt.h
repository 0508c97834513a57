#pragma once
/// Ctrl-C and SIGTERM, from the signal handler to the agent's exit. The
/// handler only records the signal; the agent's threads look at it where they
/// wait (at most every 100 ms) and stop in order: Abort to both ends, a short
/// wait for what they kept, exit 128 + the signal (130 for SIGINT, 143 for
/// SIGTERM). What the agent cannot wake from by itself (an ssh connect or
/// authentication in progress) is covered by a backstop that ends the
/// process once the bound has passed: the ends see their control channel
/// close and stop by themselves, keeping what a re-run needs.

#include <chrono>
#include <condition_variable>
#include <thread>

#include "braid/error.h"
#include "braid/mutex.h"

namespace braid {

/// From a signal handler (async-signal-safe). A second signal while the
/// first is being handled ends the process at once.
void RequestInterrupt(int signal_number);

/// The signal asked for, or 0.
int PendingInterrupt();

/// The error an interrupt ends the copy with: kInterrupted, naming the signal.
BraidError InterruptError();

/// Throws InterruptError(), if an interrupt is pending.
void ThrowIfInterrupted();

/// 128 + the pending signal (130 if none is recorded).
int InterruptExitCode();

/// How long the agent has from the signal to its exit.
constexpr auto kInterruptBound = std::chrono::milliseconds(1800);

/// The backstop: while it lives, a thread that ends the process with
/// InterruptExitCode() once an interrupt has been pending for
/// kInterruptBound and the agent still has not returned.
class InterruptBackstop {
 public:
  InterruptBackstop();
  ~InterruptBackstop();
  InterruptBackstop(const InterruptBackstop&) = delete;
  InterruptBackstop& operator=(const InterruptBackstop&) = delete;

 private:
  void Watch();

  Mutex mu_;
  std::condition_variable cv_;
  bool stop_ BRAID_GUARDED_BY(mu_) = false;
  std::thread thread_;  ///< started last, in the constructor
};

}  // namespace braid
