#include "session/buffer_pool.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace braid {
namespace {

using namespace std::chrono_literals;

/// Polls `flag` for up to `limit`.
bool BecomesTrue(const std::atomic<bool>& flag, std::chrono::milliseconds limit = 5000ms) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

/// Acquires on another thread; records when it returns and what it got.
class BackgroundAcquire {
 public:
  explicit BackgroundAcquire(BufferPool& pool) : pool_(pool) {
    thread_ = std::thread([this] {
      result_ = pool_.Acquire();
      done_ = true;
    });
  }
  ~BackgroundAcquire() {
    // Never leave the thread blocked: closing the pool releases it.
    if (!done_.load()) pool_.Close();
    thread_.join();
  }
  bool done() const { return done_.load(); }
  bool WaitDone() { return BecomesTrue(done_); }
  /// Only valid once done().
  BufferRef& result() { return result_; }

 private:
  BufferPool& pool_;
  std::thread thread_;
  std::atomic<bool> done_{false};
  BufferRef result_;
};

std::uintptr_t Address(const BufferRef& b) { return reinterpret_cast<std::uintptr_t>(b->data()); }

TEST(BufferPoolTest, ReportsItsShape) {
  BufferPool pool(12345, 3);
  EXPECT_EQ(pool.buffer_size(), 12345u);
  EXPECT_EQ(pool.count(), 3u);
}

TEST(BufferPoolTest, BuffersArePageAligned) {
  for (std::size_t size :
       {std::size_t{1}, std::size_t{4096}, std::size_t{5000}, std::size_t{1} << 20}) {
    BufferPool pool(size, 4);
    std::vector<BufferRef> held;
    for (int i = 0; i < 4; ++i) {
      BufferRef b = pool.Acquire();
      ASSERT_NE(b, nullptr);
      EXPECT_EQ(Address(b) % 4096, 0u) << "size " << size;
      EXPECT_EQ(Address(b) % static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE)), 0u);
      EXPECT_EQ(b->capacity(), size);
      // The whole capacity is usable (a sanitizer build checks the bounds).
      std::memset(b->data(), 0xAB, b->capacity());
      EXPECT_EQ(b->data()[b->capacity() - 1], 0xAB);
      held.push_back(std::move(b));
    }
  }
}

TEST(BufferPoolTest, OutstandingBuffersAreDistinct) {
  BufferPool pool(8192, 5);
  std::vector<BufferRef> held;
  std::set<std::uintptr_t> addresses;
  for (int i = 0; i < 5; ++i) {
    held.push_back(pool.Acquire());
    ASSERT_NE(held.back(), nullptr);
    addresses.insert(Address(held.back()));
  }
  EXPECT_EQ(addresses.size(), 5u);
  // Buffers do not overlap.
  for (std::size_t i = 0; i < held.size(); ++i) {
    std::memset(held[i]->data(), static_cast<int>(i), held[i]->capacity());
  }
  for (std::size_t i = 0; i < held.size(); ++i) {
    EXPECT_EQ(held[i]->data()[0], i);
    EXPECT_EQ(held[i]->data()[8191], i);
  }
}

TEST(BufferPoolTest, ReleasedBufferIsReused) {
  BufferPool pool(4096, 1);
  BufferRef a = pool.Acquire();
  ASSERT_NE(a, nullptr);
  std::uintptr_t addr = Address(a);
  a.reset();
  BackgroundAcquire again(pool);  // would block forever if the buffer leaked
  ASSERT_TRUE(again.WaitDone());
  ASSERT_NE(again.result(), nullptr);
  EXPECT_EQ(Address(again.result()), addr);
  again.result().reset();
}

TEST(BufferPoolTest, AcquireBlocksWhenAllAreOut) {
  BufferPool pool(4096, 2);
  BufferRef a = pool.Acquire();
  BufferRef b = pool.Acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  std::uintptr_t a_addr = Address(a);
  {
    BackgroundAcquire third(pool);
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(third.done()) << "a third buffer came out of a pool of two";
    a.reset();
    ASSERT_TRUE(third.WaitDone());
    ASSERT_NE(third.result(), nullptr);
    EXPECT_EQ(Address(third.result()), a_addr);
    third.result().reset();
  }
}

TEST(BufferPoolTest, LimitCapsBuffersOutAndCanBeRaised) {
  BufferPool pool(4096, 8);
  pool.SetLimit(2);
  BufferRef a = pool.Acquire();
  BufferRef b = pool.Acquire();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  {
    BackgroundAcquire third(pool);
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(third.done()) << "a third buffer came out under a limit of two";
    pool.SetLimit(3);
    ASSERT_TRUE(third.WaitDone());
    ASSERT_NE(third.result(), nullptr);
    third.result().reset();
  }
  // Lowered below what is out: nothing more until enough come back.
  pool.SetLimit(1);
  {
    BackgroundAcquire next(pool);
    std::this_thread::sleep_for(50ms);
    a.reset();
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(next.done()) << "two out under a limit of one";
    b.reset();
    ASSERT_TRUE(next.WaitDone());
    ASSERT_NE(next.result(), nullptr);
    next.result().reset();
  }
  // Never above the count, never below one.
  pool.SetLimit(100);
  std::vector<BufferRef> all;
  for (int i = 0; i < 8; ++i) all.push_back(pool.Acquire());
  for (const BufferRef& r : all) EXPECT_NE(r, nullptr);
  all.clear();
  pool.SetLimit(0);
  EXPECT_NE(pool.Acquire(), nullptr);
}

TEST(BufferPoolTest, ALoweredLimitLetsGoOfTheBuffersBeyondIt) {
  BufferPool pool(4096, 8);
  std::vector<BufferRef> out;
  for (int i = 0; i < 6; ++i) out.push_back(pool.Acquire());
  EXPECT_EQ(pool.allocated(), 6u);
  // Lowered while they are out: unmapped as they come back, down to the limit.
  pool.SetLimit(2);
  out.resize(3);
  EXPECT_EQ(pool.allocated(), 3u);
  out.clear();
  EXPECT_EQ(pool.allocated(), 2u);
  // Raised: mapped again as needed; lowered while they are free: unmapped at once.
  pool.SetLimit(8);
  for (int i = 0; i < 8; ++i) out.push_back(pool.Acquire());
  EXPECT_EQ(pool.allocated(), 8u);
  out.clear();
  EXPECT_EQ(pool.allocated(), 8u);
  pool.SetLimit(3);
  EXPECT_EQ(pool.allocated(), 3u);
  // What is left still works, written end to end.
  BufferRef b = pool.Acquire();
  ASSERT_NE(b, nullptr);
  std::memset(b->data(), 0x5a, b->capacity());
  EXPECT_EQ(b->data()[4095], 0x5a);
}

TEST(BufferPoolTest, BuffersNoWindowNeededAreLetGoOfAndTheOnesInUseKept) {
  BufferPool pool(4096, 16);
  std::vector<BufferRef> out;
  for (int i = 0; i < 8; ++i) out.push_back(pool.Acquire());
  out.clear();  // a burst (a probe of more streams), then a steady three out at once
  for (int i = 0; i < 2; ++i) out.push_back(pool.Acquire());
  for (std::size_t i = 0; i < BufferPool::kTrimWindow; ++i) {
    EXPECT_NE(pool.Acquire(), nullptr);
  }
  // The window the burst was in ended with it still counted.
  EXPECT_EQ(pool.allocated(), 8u);
  for (std::size_t i = 0; i < BufferPool::kTrimWindow; ++i) {
    EXPECT_NE(pool.Acquire(), nullptr);
  }
  EXPECT_EQ(pool.allocated(), 3u);
  // Steady use keeps what it uses: no unmapping and mapping again.
  for (std::size_t i = 0; i < 4 * BufferPool::kTrimWindow; ++i) {
    EXPECT_NE(pool.Acquire(), nullptr);
    EXPECT_EQ(pool.allocated(), 3u);
  }
}

TEST(BufferPoolTest, BufferReturnsOnlyWithTheLastReference) {
  BufferPool pool(4096, 1);
  BufferRef a = pool.Acquire();
  ASSERT_NE(a, nullptr);
  BufferRef copy = a;
  BackgroundAcquire waiter(pool);
  a.reset();
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(waiter.done()) << "buffer returned while a copy was still alive";
  copy.reset();
  ASSERT_TRUE(waiter.WaitDone());
  EXPECT_NE(waiter.result(), nullptr);
  waiter.result().reset();
}

TEST(BufferPoolTest, CloseWakesWaitersWithNullptr) {
  BufferPool pool(4096, 1);
  BufferRef held = pool.Acquire();
  ASSERT_NE(held, nullptr);
  std::vector<std::unique_ptr<BackgroundAcquire>> waiters;
  for (int i = 0; i < 3; ++i) waiters.push_back(std::make_unique<BackgroundAcquire>(pool));
  std::this_thread::sleep_for(50ms);
  for (auto& w : waiters) EXPECT_FALSE(w->done());
  pool.Close();
  for (auto& w : waiters) {
    ASSERT_TRUE(w->WaitDone());
    EXPECT_EQ(w->result(), nullptr);
  }
  waiters.clear();
  // A buffer released after Close goes back safely.
  held.reset();
}

TEST(BufferPoolTest, AcquireAfterCloseReturnsNullptrEvenWithFreeBuffers) {
  BufferPool pool(4096, 2);
  BufferRef a = pool.Acquire();
  ASSERT_NE(a, nullptr);
  a.reset();
  pool.Close();
  EXPECT_EQ(pool.Acquire(), nullptr);
  EXPECT_EQ(pool.Acquire(), nullptr);
}

TEST(BufferPoolTest, ManyThreadsNeverExceedTheCount) {
  constexpr std::size_t kCount = 3;
  BufferPool pool(4096, kCount);
  std::atomic<int> out{0};
  std::atomic<int> peak{0};
  std::atomic<bool> bad_data{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        BufferRef b = pool.Acquire();
        if (b == nullptr) return;
        int now = ++out;
        int seen = peak.load();
        while (now > seen && !peak.compare_exchange_weak(seen, now)) {
        }
        // Nobody else may be writing this buffer meanwhile.
        std::memset(b->data(), t, 64);
        std::this_thread::yield();
        for (int k = 0; k < 64; ++k) {
          if (b->data()[k] != t) bad_data = true;
        }
        --out;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(peak.load(), static_cast<int>(kCount));
  EXPECT_GE(peak.load(), 1);
  EXPECT_FALSE(bad_data.load());
}

}  // namespace
}  // namespace braid
