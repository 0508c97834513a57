#include "agent/retry_plan.h"

#include <algorithm>

namespace braid {

bool RetryPlan::IsRetryable(ErrorCode code) {
  switch (code) {
    case ErrorCode::kHostUnreachable:  // the network is down, or the host rebooting
    case ErrorCode::kDataConnect:
    case ErrorCode::kPeerLost:  // ssh cut, remote end killed, every stream reset
    case ErrorCode::kStalled:
      return true;
    default:
      return false;
  }
}

bool RetryPlan::Decide(const BraidError& error, bool resumable) {
  // Before any attempt started, a refused connection or a missing peer is the
  // user's to fix (a wrong host or port), and retrying it only hides that.
  if (!started_ || !resumable || retries() >= max_retries_ || !IsRetryable(error.code())) {
    return false;
  }
  ReportRetry note;
  note.error = error.what();
  note.exit_code = ExitCodeFor(error.code());
  note.delay_s = std::chrono::duration<double>(DelayBefore(retries() + 1)).count();
  notes_.push_back(std::move(note));
  return true;
}

std::chrono::milliseconds RetryPlan::DelayBefore(int n) {
  constexpr std::chrono::milliseconds kFirst{1000};
  constexpr std::chrono::milliseconds kMost{30000};
  if (n <= 1) return kFirst;
  const int doublings = std::min(n - 1, 5);  // 2^5 s already passes the cap
  return std::min(kMost, kFirst * (1 << doublings));
}

}  // namespace braid
