#include "agent/streams_to_connect.h"

#include <gtest/gtest.h>

#include "autostreams/stream_controller.h"
#include "braid/limits.h"

namespace braid {
namespace {

constexpr std::uint32_t kMiB = 1u << 20;

TEST(StreamsToConnectTest, OneStreamABlockUpToTheOpening) {
  EXPECT_EQ(StreamsToConnect(2, kMiB, 1, 64), 1);  // a 2-byte file
  EXPECT_EQ(StreamsToConnect(0, kMiB, 1, 64), 1);  // an empty one still has its stream
  EXPECT_EQ(StreamsToConnect(3 * kMiB, kMiB, 1, 64), 3);
  EXPECT_EQ(StreamsToConnect(3 * kMiB + 1, kMiB, 1, 64), 4);
  EXPECT_EQ(StreamsToConnect(std::uint64_t{16} * kMiB, kMiB, 1, 64), kOpeningStreams);
  // The opening is where the controller leaps: the streams it leaps to are connected.
  EXPECT_EQ(StreamControllerConfig::Tuning{}.leap_streams, kOpeningStreams);
}

TEST(StreamsToConnectTest, BeyondTheOpeningOneStreamForFourBlocks) {
  EXPECT_EQ(StreamsToConnect(std::uint64_t{17} * kMiB, kMiB, 1, 64), 16);
  EXPECT_EQ(StreamsToConnect(std::uint64_t{64} * kMiB, kMiB, 1, 64), 16);
  EXPECT_EQ(StreamsToConnect(std::uint64_t{100} * kMiB, kMiB, 1, 64), 25);
  EXPECT_EQ(StreamsToConnect(std::uint64_t{128} * kMiB, kMiB, 1, 64), 32);
  EXPECT_EQ(StreamsToConnect(std::uint64_t{256} * kMiB, kMiB, 1, 64), 64);
  EXPECT_EQ(StreamsToConnect(std::uint64_t{600} * kMiB, kMiB, 1, 64), 64);
  // Blocks, not bytes: 128 MiB in 64 KiB blocks is 2048 of them.
  EXPECT_EQ(StreamsToConnect(std::uint64_t{128} * kMiB, 64u << 10, 1, 64), 64);
}

TEST(StreamsToConnectTest, StaysWithinTheUsersRange) {
  EXPECT_EQ(StreamsToConnect(2, kMiB, 4, 64), 4);  // auto:4-64 connects at least 4
  EXPECT_EQ(StreamsToConnect(std::uint64_t{1} << 40, kMiB, 1, 8), 8);
  EXPECT_EQ(StreamsToConnect(std::uint64_t{128} * kMiB, kMiB, 1, 12), 12);
  EXPECT_EQ(StreamsToConnect(~std::uint64_t{0}, kMiB, 1, 64), 64);  // no overflow
}

TEST(StreamsToConnectTest, AnUnknownSizeMayNeedThemAll) {
  EXPECT_EQ(StreamsToConnect(std::nullopt, kMiB, 1, 64), 64);
  EXPECT_EQ(StreamsToConnect(std::uint64_t{5}, 0, 2, 32), 32);
}

}  // namespace
}  // namespace braid
