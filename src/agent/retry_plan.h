#pragma once
/// --retry: which failures a copy retries by itself, and when. A copy that
/// had started (the source was told to send) and then lost its connection,
/// its streams or its peer, or stalled, is run again from the start: new ssh
/// sessions, new streams, and the sink's resume journal, so what arrived is
/// not sent again. What a retry cannot fix (usage, authentication, host keys,
/// a full disk, a protocol violation, failed integrity, an interrupt) and a
/// copy that cannot resume (a pipe or stdin source, stdout as the target)
/// fail at once. Pure: the agent runs the attempts and sleeps.

#include <chrono>
#include <string>
#include <vector>

#include "agent/report/report.h"
#include "braid/error.h"

namespace braid {

class RetryPlan {
 public:
  /// Up to `max_retries` retries (--retry N; 0 keeps a failure final).
  explicit RetryPlan(int max_retries) : max_retries_(max_retries) {}

  /// An attempt reached the data phase: later failures of the kind a
  /// network causes are worth retrying, even before the data starts again.
  void NoteStarted() { started_ = true; }
  bool started() const { return started_; }

  /// Whether an attempt that failed with `error` is retried. If so, the note
  /// is recorded and delay() is the wait before the next attempt.
  bool Decide(const BraidError& error, bool resumable);

  /// The wait before retry `n` (1-based): 1 s, 2 s, 4 s, ... at most 30 s.
  static std::chrono::milliseconds DelayBefore(int n);

  std::chrono::milliseconds delay() const { return DelayBefore(retries()); }
  int retries() const { return static_cast<int>(notes_.size()); }
  int max_retries() const { return max_retries_; }
  const std::vector<ReportRetry>& notes() const { return notes_; }

  /// Failures a retry can cure once a copy has started: the network's.
  static bool IsRetryable(ErrorCode code);

 private:
  int max_retries_;
  bool started_ = false;
  std::vector<ReportRetry> notes_;
};

}  // namespace braid
