#include "source/token_bucket.h"

#include <algorithm>
#include <cstdlib>
#include <limits>

namespace braid {
namespace {

constexpr std::int64_t kNanosPerSecond = 1'000'000'000;
/// Longer waits are cut to this so `now + delay` cannot overflow the clock
/// (1 byte/s with a 64M block would otherwise ask for two years).
constexpr auto kMaxWait = std::chrono::hours(24 * 365 * 10);

}  // namespace

std::uint64_t BurstDepth(std::uint64_t rate, std::uint32_t block_size) {
  return std::max<std::uint64_t>(block_size, rate / 50);  // 20 ms of rate
}

TokenBucket::TokenBucket(std::uint64_t rate, std::uint64_t depth, Clock::time_point start)
    : rate_(rate), depth_(depth), tokens_(Scaled{depth} * kNanosPerSecond), last_(start) {
  // A zero rate or depth would divide by zero or never let a byte through.
  if (rate == 0 || depth == 0) std::abort();
}

void TokenBucket::Refill(Clock::time_point now) {
  if (now <= last_) return;
  const Scaled elapsed = (now - last_).count();
  last_ = now;
  const Scaled full = Scaled{depth_} * kNanosPerSecond;
  if (tokens_ >= full) return;
  // Compare times rather than multiply first: elapsed x rate reaches the
  // 128-bit limit after a long idle spell at a huge rate.
  const Scaled missing = full - tokens_;
  const Scaled fill_ns = (missing + rate_ - 1) / rate_;
  tokens_ = elapsed >= fill_ns ? full : tokens_ + elapsed * rate_;
}

std::chrono::nanoseconds TokenBucket::DelayFor(std::uint64_t bytes, Clock::time_point now) {
  Refill(now);
  tokens_ -= Scaled{bytes} * kNanosPerSecond;
  if (tokens_ >= 0) return std::chrono::nanoseconds(0);
  // Round up: sending a nanosecond early, over and over, would exceed the rate.
  const Scaled wait = (-tokens_ + rate_ - 1) / rate_;
  if (wait >= std::numeric_limits<std::int64_t>::max()) return std::chrono::nanoseconds::max();
  return std::chrono::nanoseconds(static_cast<std::int64_t>(wait));
}

void TokenBucket::SetRate(std::uint64_t rate, std::uint64_t depth, Clock::time_point now) {
  if (rate == 0 || depth == 0) std::abort();
  Refill(now);
  rate_ = rate;
  depth_ = depth;
  tokens_ = std::min(tokens_, Scaled{depth_} * kNanosPerSecond);
}

RateLimiter::RateLimiter(std::uint64_t rate, std::uint32_t block_size)
    : block_size_(block_size),
      bucket_(rate == 0 ? 1 : rate, BurstDepth(rate == 0 ? 1 : rate, block_size),
              TokenBucket::Clock::now()),
      unlimited_(rate == 0) {}

void RateLimiter::SetRate(std::uint64_t rate) {
  MutexLock lock(mutex_);
  unlimited_ = rate == 0;
  if (rate > 0) bucket_.SetRate(rate, BurstDepth(rate, block_size_), TokenBucket::Clock::now());
}

bool RateLimiter::Acquire(std::uint64_t bytes) {
  MutexLock lock(mutex_);
  if (aborted_) return false;
  if (unlimited_) return true;
  // Read the clock under the lock, so the bucket sees time move forward only.
  const auto now = TokenBucket::Clock::now();
  const std::chrono::nanoseconds delay = bucket_.DelayFor(bytes, now);
  if (delay <= std::chrono::nanoseconds(0)) return true;
  const auto deadline = now + std::min<std::chrono::nanoseconds>(delay, kMaxWait);
  // Waiting releases the lock; Abort() ends the wait early.
  while (!aborted_) {
    if (wake_.wait_until(lock.native(), deadline) == std::cv_status::timeout) break;
  }
  return !aborted_;
}

void RateLimiter::Abort() {
  {
    MutexLock lock(mutex_);
    aborted_ = true;
  }
  wake_.notify_all();
}

}  // namespace braid
