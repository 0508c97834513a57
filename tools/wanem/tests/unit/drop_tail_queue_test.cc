#include "core/drop_tail_queue.h"

#include <gtest/gtest.h>

namespace wanem {
namespace {

Frame Sized(std::uint64_t wire) {
  Frame f;
  f.wire_bytes = wire;
  return f;
}

TEST(DropTailQueue, RefusesWhatDoesNotFit) {
  DropTailQueue q(3000);
  Frame a = Sized(1500), b = Sized(1500), c = Sized(1);
  EXPECT_TRUE(q.Push(a));
  EXPECT_TRUE(q.Push(b));
  EXPECT_FALSE(q.Push(c));
  EXPECT_EQ(q.bytes(), 3000u);
  EXPECT_EQ(q.Pop().wire_bytes, 1500u);
  EXPECT_TRUE(q.Push(c));
  EXPECT_EQ(q.size(), 2u);
}

TEST(DropTailQueue, EmptyQueueTakesAnOversizedFrame) {
  DropTailQueue q(1000);
  Frame big = Sized(65'000), next = Sized(100);
  EXPECT_TRUE(q.Push(big));
  EXPECT_FALSE(q.Push(next));
}

TEST(DropTailQueue, FifoOrder) {
  DropTailQueue q(1 << 20);
  for (std::uint64_t i = 1; i <= 5; ++i) {
    Frame f = Sized(i);
    q.Push(f);
  }
  for (std::uint64_t i = 1; i <= 5; ++i) EXPECT_EQ(q.Pop().wire_bytes, i);
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace wanem
