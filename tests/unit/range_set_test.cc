#include "engine/range_set.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace braid {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(RangeSetTest, EmptySet) {
  RangeSet s;
  EXPECT_EQ(s.covered(), 0u);
  EXPECT_EQ(s.pieces(), 0u);
  EXPECT_EQ(s.ContiguousPrefix(), 0u);
  EXPECT_EQ(s.MaxEnd(), 0u);
  EXPECT_FALSE(s.Contains(0, 1));
  EXPECT_TRUE(s.Contains(5, 5));  // an empty range is always present
}

TEST(RangeSetTest, EmptyOrInvertedRangeAddsNothing) {
  RangeSet s;
  EXPECT_EQ(s.Add(5, 5), 0u);
  EXPECT_EQ(s.Add(9, 3), 0u);
  EXPECT_EQ(s.pieces(), 0u);
  EXPECT_EQ(s.covered(), 0u);
}

TEST(RangeSetTest, SingleRange) {
  RangeSet s;
  EXPECT_EQ(s.Add(10, 20), 10u);
  EXPECT_EQ(s.covered(), 10u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_EQ(s.MaxEnd(), 20u);
  EXPECT_EQ(s.ContiguousPrefix(), 0u);
  EXPECT_TRUE(s.Contains(10, 20));
  EXPECT_TRUE(s.Contains(12, 18));
  EXPECT_FALSE(s.Contains(9, 20));
  EXPECT_FALSE(s.Contains(10, 21));
  EXPECT_FALSE(s.Contains(0, 5));
  EXPECT_FALSE(s.Contains(20, 21));
}

TEST(RangeSetTest, DisjointRangesStaySeparate) {
  RangeSet s;
  EXPECT_EQ(s.Add(0, 10), 10u);
  EXPECT_EQ(s.Add(20, 30), 10u);
  EXPECT_EQ(s.pieces(), 2u);
  EXPECT_EQ(s.covered(), 20u);
  EXPECT_EQ(s.ContiguousPrefix(), 10u);
  EXPECT_EQ(s.MaxEnd(), 30u);
  EXPECT_FALSE(s.Contains(5, 25));
  EXPECT_FALSE(s.Contains(10, 20));
  EXPECT_TRUE(s.Contains(20, 30));
}

TEST(RangeSetTest, AdjacentOnTheRightMerges) {
  RangeSet s;
  s.Add(0, 10);
  EXPECT_EQ(s.Add(10, 20), 10u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_EQ(s.ContiguousPrefix(), 20u);
  EXPECT_TRUE(s.Contains(0, 20));
}

TEST(RangeSetTest, AdjacentOnTheLeftMerges) {
  RangeSet s;
  s.Add(10, 20);
  EXPECT_EQ(s.Add(0, 10), 10u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_EQ(s.covered(), 20u);
  EXPECT_EQ(s.ContiguousPrefix(), 20u);
}

TEST(RangeSetTest, FillingAGapMergesBothSides) {
  RangeSet s;
  s.Add(0, 10);
  s.Add(20, 30);
  EXPECT_EQ(s.Add(10, 20), 10u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_EQ(s.covered(), 30u);
  EXPECT_EQ(s.ContiguousPrefix(), 30u);
}

TEST(RangeSetTest, OverlapCountsOnlyNewBytes) {
  RangeSet s;
  s.Add(0, 10);
  EXPECT_EQ(s.Add(5, 15), 5u);
  EXPECT_EQ(s.covered(), 15u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_EQ(s.Add(12, 20), 5u);
  EXPECT_EQ(s.covered(), 20u);
  EXPECT_EQ(s.Add(0, 20), 0u);
}

TEST(RangeSetTest, OverlapFromTheLeft) {
  RangeSet s;
  s.Add(10, 20);
  EXPECT_EQ(s.Add(5, 15), 5u);
  EXPECT_EQ(s.covered(), 15u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_TRUE(s.Contains(5, 20));
}

TEST(RangeSetTest, DuplicateAndContainedRangesAddNothing) {
  RangeSet s;
  s.Add(100, 200);
  EXPECT_EQ(s.Add(100, 200), 0u);
  EXPECT_EQ(s.Add(120, 180), 0u);
  EXPECT_EQ(s.Add(100, 101), 0u);
  EXPECT_EQ(s.Add(199, 200), 0u);
  EXPECT_EQ(s.covered(), 100u);
  EXPECT_EQ(s.pieces(), 1u);
}

TEST(RangeSetTest, BridgingSeveralRanges) {
  RangeSet s;
  s.Add(10, 20);
  s.Add(30, 40);
  s.Add(50, 60);
  s.Add(200, 210);
  EXPECT_EQ(s.pieces(), 4u);
  EXPECT_EQ(s.Add(15, 55), 20u);  // the gaps [20,30) and [40,50)
  EXPECT_EQ(s.pieces(), 2u);
  EXPECT_EQ(s.covered(), 60u);
  EXPECT_TRUE(s.Contains(10, 60));
  EXPECT_FALSE(s.Contains(10, 61));
  EXPECT_EQ(s.Add(0, 300), 240u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_EQ(s.covered(), 300u);
  EXPECT_EQ(s.ContiguousPrefix(), 300u);
}

TEST(RangeSetTest, RangeEndingExactlyAtNextStartMerges) {
  RangeSet s;
  s.Add(20, 30);
  s.Add(40, 50);
  EXPECT_EQ(s.Add(30, 40), 10u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_EQ(s.MaxEnd(), 50u);
}

TEST(RangeSetTest, ContiguousPrefixNeedsZero) {
  RangeSet s;
  s.Add(1, 100);
  EXPECT_EQ(s.ContiguousPrefix(), 0u);
  s.Add(0, 1);
  EXPECT_EQ(s.ContiguousPrefix(), 100u);
  s.Add(101, 200);
  EXPECT_EQ(s.ContiguousPrefix(), 100u);
  EXPECT_EQ(s.MaxEnd(), 200u);
}

TEST(RangeSetTest, OutOfOrderBlocksBuildThePrefix) {
  RangeSet s;
  const std::uint64_t kB = 4096;
  std::uint64_t total = 0;
  for (std::uint64_t i : {3, 1, 4, 0, 2, 6, 5}) {
    total += s.Add(i * kB, (i + 1) * kB);
  }
  EXPECT_EQ(total, 7 * kB);
  EXPECT_EQ(s.ContiguousPrefix(), 7 * kB);
  EXPECT_EQ(s.pieces(), 1u);
}

TEST(RangeSetTest, ExtremeValues) {
  RangeSet s;
  EXPECT_EQ(s.Add(kMax - 10, kMax), 10u);
  EXPECT_EQ(s.MaxEnd(), kMax);
  EXPECT_TRUE(s.Contains(kMax - 10, kMax));
  EXPECT_EQ(s.Add(kMax - 20, kMax - 5), 10u);
  EXPECT_EQ(s.covered(), 20u);
  EXPECT_EQ(s.pieces(), 1u);
  EXPECT_EQ(s.Add(0, 1ull << 40), 1ull << 40);
  EXPECT_EQ(s.pieces(), 2u);
  EXPECT_EQ(s.ContiguousPrefix(), 1ull << 40);
}

/// Compares against a byte map over a small universe, with random adds.
TEST(RangeSetTest, MatchesABitmapModel) {
  constexpr std::uint64_t kUniverse = 300;
  std::mt19937 rng(77);
  for (int round = 0; round < 50; ++round) {
    RangeSet s;
    std::vector<bool> model(kUniverse, false);
    for (int step = 0; step < 60; ++step) {
      std::uint64_t a = std::uniform_int_distribution<std::uint64_t>(0, kUniverse)(rng);
      std::uint64_t len = std::uniform_int_distribution<std::uint64_t>(0, 40)(rng);
      std::uint64_t b = std::min(kUniverse, a + len);
      std::uint64_t fresh = 0;
      for (std::uint64_t i = a; i < b; ++i) {
        if (!model[i]) ++fresh;
        model[i] = true;
      }
      ASSERT_EQ(s.Add(a, b), fresh) << "round " << round << " add [" << a << "," << b << ")";

      std::uint64_t covered = 0, prefix = 0, max_end = 0;
      std::size_t pieces = 0;
      for (std::uint64_t i = 0; i < kUniverse; ++i) {
        if (model[i]) {
          ++covered;
          max_end = i + 1;
          if (i == 0 || !model[i - 1]) ++pieces;
        }
      }
      while (prefix < kUniverse && model[prefix]) ++prefix;
      ASSERT_EQ(s.covered(), covered);
      ASSERT_EQ(s.ContiguousPrefix(), prefix);
      ASSERT_EQ(s.MaxEnd(), max_end);
      ASSERT_EQ(s.pieces(), pieces);

      std::uint64_t qa = std::uniform_int_distribution<std::uint64_t>(0, kUniverse - 1)(rng);
      std::uint64_t qb =
          std::min(kUniverse, qa + 1 + std::uniform_int_distribution<std::uint64_t>(0, 30)(rng));
      bool all = true;
      for (std::uint64_t i = qa; i < qb; ++i) all = all && model[i];
      ASSERT_EQ(s.Contains(qa, qb), all) << "[" << qa << "," << qb << ")";
    }
  }
}

}  // namespace
}  // namespace braid
