// VerifyFeed without threads that block: which offered blocks the verifier
// gets back, what it drops, and that a stopped feed holds nothing.

#include "sink/verify_feed.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

class VerifyFeedTest : public ::testing::Test {
 protected:
  BufferPool pool{4096, 8};
  VerifyFeed::Block Block(std::uint32_t id, std::uint64_t offset) {
    return {id, offset, 4096, pool.Acquire()};
  }
  /// Offers as a receiver does; the verifier is idle, so nothing waits.
  void Offer(VerifyFeed& feed, std::uint32_t id, std::uint64_t offset) {
    feed.Announce(id, offset);
    feed.Offer(Block(id, offset));
  }
};

TEST_F(VerifyFeedTest, TakesTheBlockAtTheVerifiersPositionAndDropsOlderOnes) {
  VerifyFeed feed(4, 1 << 20);
  Offer(feed, 0, 8192);
  Offer(feed, 0, 0);
  Offer(feed, 1, 0);
  Offer(feed, 0, 4096);
  std::optional<VerifyFeed::Block> b = feed.Take(0, 4096);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->offset, 4096u);
  EXPECT_EQ(b->length, 4096u);
  EXPECT_EQ(feed.held(), 2u);         // (0, 0) was hashed from the file: dropped
  EXPECT_FALSE(feed.Take(0, 12288));  // not offered: the verifier reads it back
  EXPECT_EQ(feed.held(), 1u);         // (0, 8192) is behind it now
  EXPECT_TRUE(feed.Take(1, 0));
  EXPECT_EQ(feed.held(), 0u);
}

TEST_F(VerifyFeedTest, AFullFeedDropsTheBlockNeededLast) {
  VerifyFeed feed(2, 1 << 20);
  Offer(feed, 0, 4096);
  Offer(feed, 0, 12288);
  Offer(feed, 0, 8192);  // over the limit: (0, 12288) goes
  EXPECT_EQ(feed.held(), 2u);
  EXPECT_TRUE(feed.Take(0, 4096));
  EXPECT_TRUE(feed.Take(0, 8192));
  EXPECT_FALSE(feed.Take(0, 12288));
}

TEST_F(VerifyFeedTest, WithdrawnAndStoppedFeedsNeitherWaitNorHold) {
  VerifyFeed feed(4, 4096);
  feed.Announce(0, 0);
  feed.Withdraw(0, 0);            // already there: it will not come
  EXPECT_FALSE(feed.Take(0, 0));  // returns at once instead of waiting for it
  feed.SetBusy(true);
  feed.Announce(0, 0);
  feed.Stop();
  EXPECT_FALSE(feed.Take(0, 0));  // announced, but the feed stopped
  feed.Offer(Block(0, 0));        // busy and far ahead, but stopped: no wait
  EXPECT_EQ(feed.held(), 0u);
}

}  // namespace
}  // namespace braid
