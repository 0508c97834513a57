#include "source/token_bucket.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "braid/error.h"
#include "cli/command_line.h"

namespace braid {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using Clock = TokenBucket::Clock;

constexpr std::uint64_t kMiB = 1u << 20;
constexpr std::uint64_t kRate = 50 * kMiB;  // what `-x 50M` means

/// A fake clock's origin: any fixed point works, the bucket only sees differences.
const Clock::time_point kT0 = Clock::time_point(seconds(1000));

/// Sends `count` blocks as fast as the bucket allows, on a fake clock that
/// advances only by the delays the bucket asks for. Returns each send time.
std::vector<Clock::time_point> SendGreedily(TokenBucket& bucket, std::uint64_t block, int count) {
  std::vector<Clock::time_point> sent;
  Clock::time_point now = kT0;
  for (int i = 0; i < count; ++i) {
    now += bucket.DelayFor(block, now);
    sent.push_back(now);
  }
  return sent;
}

TEST(TokenBucketTest, BurstDepthIsOneBlockOrTwentyMillisecondsOfRate) {
  EXPECT_EQ(BurstDepth(1000, 4096), 4096u);                        // slow: one block
  EXPECT_EQ(BurstDepth(100'000'000, 1u << 20), 2'000'000u);        // 100 MB/s: 20 ms
  EXPECT_EQ(BurstDepth(10'000'000'000, 64u << 20), 200'000'000u);  // 10 GB/s: 20 ms
}

TEST(TokenBucketTest, LongRunAverageEqualsTheRateWithinOnePercent) {
  for (std::uint64_t block : {std::uint64_t{4096}, kMiB, 8 * kMiB}) {
    SCOPED_TRACE("block " + std::to_string(block));
    TokenBucket bucket(kRate, BurstDepth(kRate, static_cast<std::uint32_t>(block)), kT0);
    const int count = static_cast<int>(40 * kRate / block);  // about 40 s of data
    std::vector<Clock::time_point> sent = SendGreedily(bucket, block, count);
    const double elapsed = std::chrono::duration<double>(sent.back() - kT0).count();
    const double average = static_cast<double>(block) * count / elapsed;
    EXPECT_NEAR(average / static_cast<double>(kRate), 1.0, 0.01) << average;
  }
}

TEST(TokenBucketTest, NoWindowCarriesMoreThanDepthPlusRateTimesItsLength) {
  // Greedy 64K sends: in any window [a, b], sends <= depth + rate * (b - a).
  const std::uint64_t block = 64 * 1024;
  TokenBucket bucket(kRate, BurstDepth(kRate, kMiB), kT0);
  std::vector<Clock::time_point> sent = SendGreedily(bucket, block, 5000);
  for (std::size_t a = 0; a < sent.size(); a += 37) {
    for (std::size_t b = a; b < sent.size(); ++b) {
      const double window = std::chrono::duration<double>(sent[b] - sent[a]).count();
      const double bytes = static_cast<double>((b - a + 1) * block);
      ASSERT_LE(bytes,
                static_cast<double>(bucket.depth()) + static_cast<double>(kRate) * window + 1.0)
          << "window " << a << ".." << b;
    }
  }
}

TEST(TokenBucketTest, AFullBucketReleasesAtMostItsDepthAtOnce) {
  const std::uint64_t depth = 100'000;
  TokenBucket bucket(1'000'000, depth, kT0);
  ASSERT_EQ(bucket.DelayFor(depth, kT0), nanoseconds(0));  // empty it
  // Ten idle seconds fill it only to the depth, not to 10 s of rate.
  Clock::time_point now = kT0 + seconds(10);
  std::uint64_t free_bytes = 0;
  while (bucket.DelayFor(1000, now) == nanoseconds(0)) free_bytes += 1000;
  EXPECT_EQ(free_bytes, depth);
}

TEST(TokenBucketTest, ABlockLargerThanTheDepthGoesIntoDebt) {
  const std::uint64_t rate = 1'000'000;
  TokenBucket bucket(rate, 100'000, kT0);
  // A 1 MB block is granted against the 100 KB saved up plus 900 KB of
  // debt, and its sender waits until the debt is paid...
  EXPECT_EQ(bucket.DelayFor(1'000'000, kT0), milliseconds(900));
  // ... so the next byte waits that 0.9 s plus its own microsecond.
  EXPECT_EQ(bucket.DelayFor(1, kT0), nanoseconds(900'001'000));
  // Half a second later 0.4 s of debt remains, plus that byte and this one.
  EXPECT_EQ(bucket.DelayFor(1, kT0 + milliseconds(500)), nanoseconds(400'002'000));
}

TEST(TokenBucketTest, ZeroElapsedTimeAddsNoTokens) {
  TokenBucket bucket(1000, 1000, kT0);
  EXPECT_EQ(bucket.DelayFor(1000, kT0), nanoseconds(0));
  EXPECT_EQ(bucket.DelayFor(500, kT0), milliseconds(500));
  EXPECT_EQ(bucket.DelayFor(500, kT0), milliseconds(1000));
  // A zero-byte request asks nothing but reports the queue ahead of it.
  EXPECT_EQ(bucket.DelayFor(0, kT0), milliseconds(1000));
}

TEST(TokenBucketTest, TimeGoingBackwardsCountsAsNoTimePassed) {
  TokenBucket bucket(1000, 1000, kT0);
  EXPECT_EQ(bucket.DelayFor(1000, kT0 + seconds(5)), nanoseconds(0));
  // A thread that read the clock earlier gets no refund, and no credit.
  EXPECT_EQ(bucket.DelayFor(1000, kT0 + seconds(4)), seconds(1));
  EXPECT_EQ(bucket.DelayFor(0, kT0 + seconds(5)), seconds(1));
}

TEST(TokenBucketTest, DelaysRoundUpSoTheRateIsNeverExceeded) {
  // 3 bytes/s: one byte costs 333,333,333.3 ns, so the wait must be ...334.
  TokenBucket bucket(3, 1, kT0);
  EXPECT_EQ(bucket.DelayFor(1, kT0), nanoseconds(0));
  EXPECT_EQ(bucket.DelayFor(1, kT0), nanoseconds(333'333'334));
}

TEST(TokenBucketTest, HugeRatesAndSizesDoNotOverflow) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t depth = BurstDepth(max, kMiB);
  TokenBucket fast(max, depth, kT0);
  // 2^64-1 bytes at 2^64-1 bytes/s, less the 2% saved up: 0.98 s, rounded up.
  EXPECT_EQ(fast.DelayFor(max, kT0), nanoseconds(980'000'001));
  // A century idle refills it to the depth only.
  Clock::time_point later = kT0 + std::chrono::hours(24 * 365 * 100);
  EXPECT_EQ(fast.DelayFor(64 * kMiB, later), nanoseconds(0));
  EXPECT_EQ(fast.DelayFor(depth - 64 * kMiB, later), nanoseconds(0));
  EXPECT_EQ(fast.DelayFor(max, later), nanoseconds(1'000'000'000));  // a second of debt
  // A tiny rate with a maximal request saturates instead of wrapping negative.
  TokenBucket slow(1, 1, kT0);
  EXPECT_EQ(slow.DelayFor(max, kT0), nanoseconds::max());
  EXPECT_GT(slow.DelayFor(1, kT0 + seconds(1)), nanoseconds(0));
}

TEST(RateLimiterTest, AbortWakesAWaiterAtOnceAndRefusesLaterCalls) {
  RateLimiter limiter(1000, 1000);  // 1 KB/s
  ASSERT_TRUE(limiter.Acquire(1000));
  bool result = true;
  auto start = Clock::now();
  std::thread waiter([&] { result = limiter.Acquire(1'000'000); });  // ~1000 s
  std::this_thread::sleep_for(milliseconds(50));
  limiter.Abort();
  waiter.join();
  EXPECT_FALSE(result);
  EXPECT_LT(Clock::now() - start, seconds(5));
  EXPECT_FALSE(limiter.Acquire(1));
}

TEST(RateLimiterTest, ThreadsShareOneBudget) {
  // Four threads each take 10 x 10 KB at 1 MB/s (10 KB blocks, so a depth of
  // 20 ms = 20 KB): 400 KB in total needs about 0.38 s however they interleave.
  RateLimiter limiter(1'000'000, 10'000);
  auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.Acquire(10'000));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_GE(Clock::now() - start, milliseconds(375));
}

TEST(RateLimiterTest, RateZeroIsUnlimitedUntilSetAndSetRateZeroLiftsIt) {
  RateLimiter limiter(0, 10'000);
  auto start = Clock::now();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limiter.Acquire(1'000'000));  // 1 GB, no wait
  EXPECT_LT(Clock::now() - start, milliseconds(200));

  limiter.SetRate(1'000'000);  // 1 MB/s, depth 20 KB
  start = Clock::now();
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(limiter.Acquire(10'000));
  EXPECT_GE(Clock::now() - start, milliseconds(95));  // 120 KB - 20 KB at 1 MB/s

  limiter.SetRate(0);
  start = Clock::now();
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(limiter.Acquire(1'000'000));
  EXPECT_LT(Clock::now() - start, milliseconds(200));
}

TEST(TokenBucketTest, SetRateCreditsTheTimeBeforeAtTheOldRate) {
  TokenBucket bucket(1000, 1000, kT0);
  EXPECT_EQ(bucket.DelayFor(1000, kT0), nanoseconds(0));  // empties it
  // Half a second at 1000 B/s refills 500; then 2000 B/s with depth 4000.
  bucket.SetRate(2000, 4000, kT0 + milliseconds(500));
  EXPECT_EQ(bucket.DelayFor(500, kT0 + milliseconds(500)), nanoseconds(0));
  // Empty now: 1000 more bytes take half a second at the new rate.
  EXPECT_EQ(bucket.DelayFor(1000, kT0 + milliseconds(500)), milliseconds(500));
}

/// ParseCommandLine on `args` after the program name.
CommandLine ParseArgs(std::vector<std::string> args) {
  args.insert(args.begin(), "braid");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  std::ostringstream out;
  return ParseCommandLine(static_cast<int>(args.size()), argv.data(), out);
}

std::string RateUsageError(const std::string& value) {
  try {
    ParseArgs({"-x", value, "a", "b"});
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    return e.what();
  }
  ADD_FAILURE() << "no error for -x " << value;
  return "";
}

TEST(RateOptionTest, ParsesBytesAndBitsPerSecond) {
  EXPECT_EQ(ParseArgs({"a", "b"}).options.rate, 0u);
  EXPECT_EQ(ParseArgs({"-x", "50M", "a", "b"}).options.rate, 50 * kMiB);
  EXPECT_EQ(ParseArgs({"--rate", "800Mbit", "a", "b"}).options.rate, 100'000'000u);
  EXPECT_EQ(ParseArgs({"--rate=1G", "a", "b"}).options.rate, 1024 * kMiB);
}

TEST(RateOptionTest, RejectsZeroAndNonsense) {
  EXPECT_NE(RateUsageError("0").find("-x/--rate must be at least 1 byte/s"), std::string::npos);
  EXPECT_NE(RateUsageError("7bit").find("at least 1 byte/s"), std::string::npos);
  std::string fast = RateUsageError("fast");
  EXPECT_NE(fast.find("-x/--rate"), std::string::npos) << fast;
  EXPECT_NE(fast.find("fast"), std::string::npos) << fast;
}

TEST(RateOptionTest, HelpMentionsIt) {
  std::vector<std::string> args = {"braid", "--help"};
  std::vector<const char*> argv = {args[0].c_str(), args[1].c_str(), nullptr};
  std::ostringstream out;
  ParseCommandLine(2, argv.data(), out);
  EXPECT_NE(out.str().find("-x,--rate"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("800Mbit"), std::string::npos);
}

}  // namespace
}  // namespace braid
