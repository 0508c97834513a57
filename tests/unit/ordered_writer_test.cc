#include "sink/ordered_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "session/buffer_pool.h"

namespace braid {
namespace {

using namespace std::chrono_literals;

constexpr std::uint32_t kBlock = 4096;

struct Write {
  std::uint64_t offset;
  std::vector<std::uint8_t> bytes;
};

/// Records every write the OrderedWriter makes.
class Recorder {
 public:
  OrderedWriter::WriteFn Fn() {
    return [this](std::uint64_t offset, const std::uint8_t* data, std::uint32_t n) {
      std::lock_guard lock(mutex_);
      writes_.push_back({offset, std::vector<std::uint8_t>(data, data + n)});
    };
  }
  std::vector<Write> writes() const {
    std::lock_guard lock(mutex_);
    return writes_;
  }
  std::vector<std::uint64_t> offsets() const {
    std::vector<std::uint64_t> out;
    for (const auto& w : writes()) out.push_back(w.offset);
    return out;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Write> writes_;
};

/// A pool buffer filled with `tag`.
BufferRef Block(BufferPool& pool, std::uint8_t tag) {
  BufferRef b = pool.Acquire();
  EXPECT_NE(b, nullptr);
  if (b != nullptr) std::memset(b->data(), tag, b->capacity());
  return b;
}

/// Acquire that gives up after `limit`: closes the pool so a leak fails the test
/// instead of hanging it.
BufferRef AcquireWithin(BufferPool& pool, std::chrono::milliseconds limit = 5000ms) {
  BufferRef out;
  std::atomic<bool> got{false};
  std::thread t([&] {
    out = pool.Acquire();
    got = true;
  });
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!got.load() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  if (!got.load()) pool.Close();
  t.join();
  return out;
}

/// A pool buffer filled with `tag`, or nullptr if none comes back in time.
BufferRef BoundedBlock(BufferPool& pool, std::uint8_t tag) {
  BufferRef b = AcquireWithin(pool);
  EXPECT_NE(b, nullptr) << "pool buffer never came back";
  if (b != nullptr) std::memset(b->data(), tag, b->capacity());
  return b;
}

/// Polls `flag` for up to `limit`.
bool BecomesTrue(const std::atomic<bool>& flag, std::chrono::milliseconds limit = 5000ms) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (!flag.load()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

TEST(OrderedWriterTest, InOrderBlocksAreWrittenAtOnce) {
  BufferPool pool(kBlock, 8);
  Recorder rec;
  OrderedWriter w(4 * kBlock, rec.Fn());
  EXPECT_EQ(w.position(), 0u);
  w.Submit(0, Block(pool, 1), kBlock);
  EXPECT_EQ(w.position(), kBlock);
  EXPECT_EQ(rec.writes().size(), 1u);
  w.Submit(kBlock, Block(pool, 2), 100);
  EXPECT_EQ(w.position(), kBlock + 100u);
  EXPECT_EQ(w.held(), 0u);
  auto writes = rec.writes();
  ASSERT_EQ(writes.size(), 2u);
  EXPECT_EQ(writes[0].offset, 0u);
  EXPECT_EQ(writes[0].bytes, std::vector<std::uint8_t>(kBlock, 1));
  EXPECT_EQ(writes[1].offset, kBlock);
  EXPECT_EQ(writes[1].bytes, std::vector<std::uint8_t>(100, 2));
}

TEST(OrderedWriterTest, OutOfOrderBlocksAreWrittenInOrder) {
  BufferPool pool(kBlock, 8);
  Recorder rec;
  OrderedWriter w(8 * kBlock, rec.Fn());
  w.Submit(3 * kBlock, Block(pool, 4), kBlock);
  w.Submit(1 * kBlock, Block(pool, 2), kBlock);
  w.Submit(2 * kBlock, Block(pool, 3), kBlock);
  EXPECT_TRUE(rec.writes().empty());
  EXPECT_EQ(w.held(), 3u);
  EXPECT_EQ(w.position(), 0u);

  w.Submit(0, Block(pool, 1), kBlock);
  EXPECT_EQ(w.held(), 0u);
  EXPECT_EQ(w.position(), 4 * kBlock);
  auto writes = rec.writes();
  ASSERT_EQ(writes.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(writes[i].offset, i * kBlock);
    EXPECT_EQ(writes[i].bytes, std::vector<std::uint8_t>(kBlock, static_cast<std::uint8_t>(i + 1)));
  }
}

TEST(OrderedWriterTest, GapStopsTheFlush) {
  BufferPool pool(kBlock, 8);
  Recorder rec;
  OrderedWriter w(8 * kBlock, rec.Fn());
  w.Submit(kBlock, Block(pool, 2), kBlock);
  w.Submit(3 * kBlock, Block(pool, 4), kBlock);
  w.Submit(0, Block(pool, 1), kBlock);
  EXPECT_EQ(rec.offsets(), (std::vector<std::uint64_t>{0, kBlock}));
  EXPECT_EQ(w.position(), 2 * kBlock);
  EXPECT_EQ(w.held(), 1u);
  w.Submit(2 * kBlock, Block(pool, 3), kBlock);
  EXPECT_EQ(rec.offsets(), (std::vector<std::uint64_t>{0, kBlock, 2 * kBlock, 3 * kBlock}));
  EXPECT_EQ(w.held(), 0u);
}

TEST(OrderedWriterTest, ShortBlocksAdvanceByTheirLength) {
  BufferPool pool(kBlock, 8);
  Recorder rec;
  OrderedWriter w(8 * kBlock, rec.Fn());
  w.Submit(10, Block(pool, 2), 5);
  w.Submit(0, Block(pool, 1), 10);
  w.Submit(15, Block(pool, 3), 1);
  EXPECT_EQ(rec.offsets(), (std::vector<std::uint64_t>{0, 10, 15}));
  EXPECT_EQ(w.position(), 16u);
}

TEST(OrderedWriterTest, DuplicatesAreDropped) {
  BufferPool pool(kBlock, 8);
  Recorder rec;
  OrderedWriter w(8 * kBlock, rec.Fn());
  w.Submit(0, Block(pool, 1), kBlock);
  w.Submit(0, Block(pool, 9), kBlock);  // already written
  EXPECT_EQ(rec.writes().size(), 1u);
  EXPECT_EQ(w.held(), 0u);

  w.Submit(2 * kBlock, Block(pool, 3), kBlock);
  w.Submit(2 * kBlock, Block(pool, 9), kBlock);  // already held
  EXPECT_EQ(w.held(), 1u);
  w.Submit(kBlock, Block(pool, 2), kBlock);
  auto writes = rec.writes();
  ASSERT_EQ(writes.size(), 3u);
  EXPECT_EQ(writes[2].offset, 2 * kBlock);
  EXPECT_EQ(writes[2].bytes, std::vector<std::uint8_t>(kBlock, 3)) << "the first copy wins";
  w.Submit(kBlock, Block(pool, 9), kBlock);  // behind the position
  EXPECT_EQ(rec.writes().size(), 3u);
  EXPECT_EQ(w.position(), 3 * kBlock);
}

TEST(OrderedWriterTest, BuffersGoBackToThePoolAfterWriting) {
  BufferPool pool(kBlock, 2);
  Recorder rec;
  OrderedWriter w(8 * kBlock, rec.Fn());
  for (int round = 0; round < 5; ++round) {
    std::uint64_t base = static_cast<std::uint64_t>(round) * 2 * kBlock;
    // Both buffers are out; the writer holds one, then writes and frees both.
    BufferRef second = BoundedBlock(pool, 2);
    BufferRef first = BoundedBlock(pool, 1);
    ASSERT_NE(second, nullptr);
    ASSERT_NE(first, nullptr);
    w.Submit(base + kBlock, std::move(second), kBlock);
    w.Submit(base, std::move(first), kBlock);
  }
  EXPECT_EQ(w.position(), 10 * kBlock);
  EXPECT_EQ(rec.writes().size(), 10u);
}

TEST(OrderedWriterTest, WaitForRoomInsideTheWindowReturnsAtOnce) {
  Recorder rec;
  OrderedWriter w(2 * kBlock, rec.Fn());
  EXPECT_TRUE(w.WaitForRoom(0));
  EXPECT_TRUE(w.WaitForRoom(kBlock));
  EXPECT_TRUE(w.WaitForRoom(2 * kBlock - 1));
}

TEST(OrderedWriterTest, WaitForRoomBlocksFarBlockUntilTheWindowMoves) {
  BufferPool pool(kBlock, 8);
  Recorder rec;
  OrderedWriter w(2 * kBlock, rec.Fn());
  std::atomic<bool> done{false};
  std::atomic<bool> result{false};
  std::thread waiter([&] {
    result = w.WaitForRoom(2 * kBlock);
    done = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(done.load()) << "a block a whole window ahead did not wait";

  // A block that does not move the position changes nothing.
  w.Submit(kBlock, Block(pool, 2), kBlock);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(done.load());

  w.Submit(0, Block(pool, 1), kBlock);  // position jumps to 2 blocks
  bool woke = BecomesTrue(done);
  if (!woke) w.Abort();  // never leave the thread stuck
  waiter.join();
  EXPECT_TRUE(woke);
  EXPECT_TRUE(result.load());
  EXPECT_EQ(w.position(), 2 * kBlock);
}

TEST(OrderedWriterTest, AbortWakesWaitersWhichReturnFalse) {
  Recorder rec;
  OrderedWriter w(kBlock, rec.Fn());
  constexpr int kWaiters = 3;
  std::atomic<int> returned{0};
  std::atomic<int> returned_true{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kWaiters; ++i) {
    threads.emplace_back([&, i] {
      if (w.WaitForRoom(static_cast<std::uint64_t>(10 + i) * kBlock)) ++returned_true;
      ++returned;
    });
  }
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(returned.load(), 0);
  w.Abort();
  auto deadline = std::chrono::steady_clock::now() + 5s;
  while (returned.load() < kWaiters && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(returned.load(), kWaiters);
  for (auto& t : threads) t.join();
  EXPECT_EQ(returned_true.load(), 0);
}

TEST(OrderedWriterTest, AfterAbortNothingIsWrittenOrWaited) {
  BufferPool pool(kBlock, 4);
  Recorder rec;
  OrderedWriter w(4 * kBlock, rec.Fn());
  w.Submit(kBlock, Block(pool, 2), kBlock);
  EXPECT_EQ(w.held(), 1u);
  w.Abort();
  EXPECT_EQ(w.held(), 0u);
  EXPECT_FALSE(w.WaitForRoom(0));
  EXPECT_FALSE(w.WaitForRoom(100 * kBlock));
  w.Submit(0, Block(pool, 1), kBlock);
  EXPECT_TRUE(rec.writes().empty());
  EXPECT_EQ(w.position(), 0u);
  // Held buffers were released: all four can be taken again.
  std::vector<BufferRef> all;
  for (int i = 0; i < 4; ++i) all.push_back(AcquireWithin(pool));
  for (const auto& b : all) EXPECT_NE(b, nullptr);
}

TEST(OrderedWriterTest, WriteFailurePropagatesToSubmitter) {
  BufferPool pool(kBlock, 4);
  OrderedWriter w(4 * kBlock, [](std::uint64_t, const std::uint8_t*, std::uint32_t) {
    throw std::runtime_error("disk on fire");
  });
  EXPECT_THROW(w.Submit(0, Block(pool, 1), kBlock), std::runtime_error);
  EXPECT_EQ(w.position(), 0u);
  // The writer is still usable: Abort does not hang.
  w.Abort();
  EXPECT_FALSE(w.WaitForRoom(0));
}

TEST(OrderedWriterTest, ConcurrentSubmittersProduceOrderedOutput) {
  constexpr int kThreads = 4;
  constexpr std::uint64_t kBlocks = 200;
  BufferPool pool(kBlock, 16);
  Recorder rec;
  OrderedWriter w(8 * kBlock, rec.Fn());
  std::atomic<std::uint64_t> next{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (;;) {
        std::uint64_t i = next++;
        if (i >= kBlocks) return;
        std::uint64_t offset = i * kBlock;
        if (!w.WaitForRoom(offset)) return;
        BufferRef b = pool.Acquire();
        if (b == nullptr) return;
        std::memset(b->data(), static_cast<int>(i % 251), kBlock);
        w.Submit(offset, std::move(b), kBlock);
      }
    });
  }
  // Bounded: give up (and unblock everyone) if the writer stalls.
  auto deadline = std::chrono::steady_clock::now() + 20s;
  while (w.position() < kBlocks * kBlock && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(1ms);
  }
  if (w.position() < kBlocks * kBlock) {
    w.Abort();
    pool.Close();
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(w.position(), kBlocks * kBlock);
  auto writes = rec.writes();
  ASSERT_EQ(writes.size(), kBlocks);
  for (std::uint64_t i = 0; i < kBlocks; ++i) {
    EXPECT_EQ(writes[i].offset, i * kBlock);
    EXPECT_EQ(writes[i].bytes[0], static_cast<std::uint8_t>(i % 251));
  }
}

}  // namespace
}  // namespace braid
