#include "agent/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>

namespace braid {
namespace {

/// Set by RequestInterrupt from a signal handler, read by the agent's threads.
std::atomic<int> g_interrupt{0};

/// What stopped the copy: a signal from the user, or -t's alarm.
std::string Cause(int sig) {
  if (sig == SIGALRM) return "stopped: the time limit (-t) has passed";
  return std::string("interrupted by ") + (sig == SIGTERM ? "SIGTERM" : "SIGINT");
}

}  // namespace

void RequestInterrupt(int signal_number) {
  if (g_interrupt.exchange(signal_number) != 0) {
    // The user asked twice: no more waiting, for anything.
    static constexpr char kMessage[] = "braid: interrupted again; exiting now\n";
    [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
    ::_exit(128 + signal_number);
  }
}

int PendingInterrupt() { return g_interrupt.load(); }

BraidError InterruptError() {
  return BraidError(ErrorCode::kInterrupted, Cause(PendingInterrupt()));
}

void ThrowIfInterrupted() {
  if (PendingInterrupt() != 0) throw InterruptError();
}

int InterruptExitCode() {
  const int sig = PendingInterrupt();
  return sig != 0 ? 128 + sig : ExitCodeFor(ErrorCode::kInterrupted);
}

InterruptBackstop::InterruptBackstop() : thread_([this] { Watch(); }) {}

InterruptBackstop::~InterruptBackstop() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void InterruptBackstop::Watch() {
  constexpr auto kLook = std::chrono::milliseconds(50);
  std::chrono::steady_clock::time_point since{};
  MutexLock lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock.native(), kLook);
    if (stop_ || PendingInterrupt() == 0) continue;
    const auto now = std::chrono::steady_clock::now();
    if (since == std::chrono::steady_clock::time_point{}) since = now;
    if (now - since < kInterruptBound) continue;
    std::fprintf(stderr, "braid: %s; stopped without waiting for the other end\n",
                 Cause(PendingInterrupt()).c_str());
    std::fflush(stderr);
    ::_exit(InterruptExitCode());
  }
}

}  // namespace braid
