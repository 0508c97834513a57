#include "sink/write_behind.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "thrown_code.h"

namespace braid {
namespace {

using namespace std::chrono_literals;

TEST(WriteBehindTest, WritesRunInOrderOnAThreadOfTheirOwn) {
  TransferState state;
  std::mutex mutex;
  std::vector<int> order;
  std::vector<std::thread::id> threads;
  {
    WriteBehind behind(state, 1);
    for (int i = 0; i < 50; ++i) {
      behind.Submit([&, i] {
        std::lock_guard lock(mutex);
        order.push_back(i);
        threads.push_back(std::this_thread::get_id());
      });
    }
    behind.Drain();
    std::lock_guard lock(mutex);
    ASSERT_EQ(order.size(), 50U);
  }
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
  for (auto id : threads) EXPECT_NE(id, std::this_thread::get_id());
  EXPECT_FALSE(state.failed());
}

TEST(WriteBehindTest, TheReceiverGoesOnWhileAWriteRunsButNeverPastTheDepth) {
  TransferState state;
  WriteBehind behind(state, 1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> finished{0};
  behind.Submit([&] {
    released.wait();
    ++finished;
  });
  // Submit came back with the first write still waiting: the receiver reads on.
  EXPECT_EQ(finished.load(), 0);
  std::atomic<bool> second_handed_over{false};
  std::thread receiver([&] {
    behind.Submit([&] { ++finished; });
    second_handed_over = true;
  });
  std::this_thread::sleep_for(50ms);
  // At depth 1 the second write waits for the first: the depth bounds memory.
  EXPECT_FALSE(second_handed_over.load());
  release.set_value();
  receiver.join();
  behind.Drain();
  EXPECT_EQ(finished.load(), 2);
}

TEST(WriteBehindTest, UpToTheDepthWritesRunAtOnce) {
  TransferState state;
  WriteBehind behind(state, 3);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> running{0};
  std::atomic<int> most{0};
  auto write = [&] {
    int now = ++running;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    released.wait();
    --running;
  };
  for (int i = 0; i < 3; ++i) behind.Submit(write);
  // All three were handed over without waiting; they wait together.
  for (int i = 0; i < 200 && running.load() < 3; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(running.load(), 3);
  std::atomic<bool> fourth_handed_over{false};
  std::thread receiver([&] {
    behind.Submit(write);
    fourth_handed_over = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(fourth_handed_over.load());
  release.set_value();
  receiver.join();
  behind.Drain();
  EXPECT_EQ(running.load(), 0);
  EXPECT_EQ(most.load(), 3);
}

TEST(WriteBehindTest, StreamsShareTheDisksQueue) {
  EXPECT_EQ(WriteBehind::DepthFor(0), 4U);
  EXPECT_EQ(WriteBehind::DepthFor(1), 4U);
  EXPECT_EQ(WriteBehind::DepthFor(2), 2U);
  EXPECT_EQ(WriteBehind::DepthFor(4), 1U);
  EXPECT_EQ(WriteBehind::DepthFor(64), 1U);
}

TEST(WriteBehindTest, AFailedWriteFailsTheTransferAndIsRethrownToTheReceiver) {
  TransferState state;
  WriteBehind behind(state, 1);
  behind.Submit([] { throw BraidError(ErrorCode::kDiskFull, "host:/t/f: No space left"); });
  EXPECT_EQ(ThrownCode([&] { behind.Drain(); }), ErrorCode::kDiskFull);
  EXPECT_TRUE(state.failed());
  ASSERT_TRUE(state.error().has_value());
  EXPECT_EQ(state.error()->code(), ErrorCode::kDiskFull);
  // The receiver learns of it at its next block too, and that block is not written.
  bool written = false;
  EXPECT_EQ(ThrownCode([&] { behind.Submit([&] { written = true; }); }), ErrorCode::kDiskFull);
  EXPECT_FALSE(written);
}

TEST(WriteBehindTest, StoppingWaitsForTheWriteUnderWay) {
  TransferState state;
  std::atomic<bool> done{false};
  {
    WriteBehind behind(state, 1);
    behind.Submit([&] {
      std::this_thread::sleep_for(30ms);
      done = true;
    });
  }
  EXPECT_TRUE(done.load());
}

TEST(WriteBehindTest, DrainWithNothingWrittenReturnsAtOnce) {
  TransferState state;
  WriteBehind behind(state, 1);
  behind.Drain();
  EXPECT_FALSE(state.failed());
}

}  // namespace
}  // namespace braid
