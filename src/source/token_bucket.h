#pragma once
/// Rate limiting for -x: one token bucket shared by every sender stream, so
/// the limit is on the transfer's total, however many streams carry it.
///
/// TokenBucket is pure (the caller passes the time, so tests drive it with a
/// fake clock); RateLimiter wraps it with a mutex, the real clock and an
/// abortable wait for the sender threads.

#include <chrono>
#include <condition_variable>
#include <cstdint>

#include "braid/mutex.h"

namespace braid {

/// The burst depth braid uses for `rate` bytes/s and `block_size`-byte
/// blocks: the larger of one block and 20 ms of rate. Small, so the limit
/// holds at sub-second scale (no seconds-long on/off bursts), yet a whole
/// block fits, so a full bucket lets the next block go without a wait.
std::uint64_t BurstDepth(std::uint64_t rate, std::uint32_t block_size);

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;

  /// `rate` bytes per second (> 0), at most `depth` bytes (> 0) saved up;
  /// starts full at `start`.
  TokenBucket(std::uint64_t rate, std::uint64_t depth, Clock::time_point start);

  /// Takes `bytes` tokens at `now` and returns how long the caller must wait
  /// before sending them (zero if they were there). The bucket may go into
  /// debt, so a block larger than the depth still goes, just later; later
  /// callers queue behind the debt. A `now` earlier than one seen before
  /// (threads racing to the lock) counts as no time passed.
  std::chrono::nanoseconds DelayFor(std::uint64_t bytes, Clock::time_point now);

  /// Changes the rate from `now` on; the time before it is credited at the old rate.
  void SetRate(std::uint64_t rate, std::uint64_t depth, Clock::time_point now);

  std::uint64_t rate() const { return rate_; }
  std::uint64_t depth() const { return depth_; }

 private:
  /// Tokens are kept in byte-seconds scaled by 1e9 (bytes x 1e9), so adding
  /// `elapsed_ns x rate` is exact integer arithmetic with no drift at any rate.
  __extension__ typedef __int128 Scaled;

  void Refill(Clock::time_point now);

  std::uint64_t rate_;
  std::uint64_t depth_;
  Scaled tokens_;  ///< negative while in debt
  Clock::time_point last_;
};

/// A TokenBucket shared by threads, on the real clock. Acquire() sleeps
/// without holding the lock, so other senders reserve (and queue) meanwhile.
/// Every sender thread calls Acquire; the reporter or the -s controller may
/// call SetRate; Abort comes from whichever thread ends the transfer.
class RateLimiter {
 public:
  /// `rate` 0: no limit until SetRate() gives one. `block_size`: the burst
  /// depth follows the rate (BurstDepth).
  RateLimiter(std::uint64_t rate, std::uint32_t block_size);
  /// A new rate for later Acquire() calls; 0 lifts the limit.
  void SetRate(std::uint64_t rate);

  /// Blocks until `bytes` may be sent. Returns false at once, or as soon as
  /// Abort() is called during the wait, so an aborted transfer never sleeps on.
  bool Acquire(std::uint64_t bytes);
  /// Wakes every waiter; every later Acquire() returns false.
  void Abort();

 private:
  Mutex mutex_;
  std::condition_variable wake_;    ///< signals Abort
  const std::uint32_t block_size_;  ///< set in the constructor
  TokenBucket bucket_ BRAID_GUARDED_BY(mutex_);
  bool unlimited_ BRAID_GUARDED_BY(mutex_) = false;
  bool aborted_ BRAID_GUARDED_BY(mutex_) = false;
};

}  // namespace braid
