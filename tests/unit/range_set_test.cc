#include "session/range_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <utility>
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

// ---------------------------------------------------------------- Ranges and Gaps

using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

TEST(RangeSetTest, EmptySetHasNoRangesAndOneGap) {
  RangeSet s;
  EXPECT_TRUE(s.Ranges().empty());
  EXPECT_EQ(s.Gaps(100), (Ranges{{0, 100}}));
  EXPECT_TRUE(s.Gaps(0).empty());
}

TEST(RangeSetTest, RangesAreMergedAndInOrder) {
  RangeSet s;
  s.Add(50, 60);
  s.Add(0, 10);
  s.Add(20, 30);
  s.Add(30, 40);  // adjacent: merges with [20, 30)
  s.Add(55, 70);  // overlapping: extends [50, 60)
  EXPECT_EQ(s.Ranges(), (Ranges{{0, 10}, {20, 40}, {50, 70}}));
  EXPECT_EQ(s.Ranges().size(), s.pieces());
}

TEST(RangeSetTest, FullCoverageHasNoGaps) {
  RangeSet s;
  s.Add(0, 100);
  EXPECT_TRUE(s.Gaps(100).empty());
  EXPECT_TRUE(s.Gaps(50).empty());
  EXPECT_TRUE(s.Gaps(0).empty());
  EXPECT_EQ(s.Gaps(101), (Ranges{{100, 101}}));
}

TEST(RangeSetTest, GapsAtTheStartMiddleAndEnd) {
  RangeSet s;
  s.Add(10, 20);
  s.Add(30, 40);
  EXPECT_EQ(s.Gaps(50), (Ranges{{0, 10}, {20, 30}, {40, 50}}));
  // `end` exactly at the end of the last range: no gap after it.
  EXPECT_EQ(s.Gaps(40), (Ranges{{0, 10}, {20, 30}}));
  // `end` inside a gap, inside a range, at a range's start.
  EXPECT_EQ(s.Gaps(25), (Ranges{{0, 10}, {20, 25}}));
  EXPECT_EQ(s.Gaps(15), (Ranges{{0, 10}}));
  EXPECT_EQ(s.Gaps(10), (Ranges{{0, 10}}));
  EXPECT_EQ(s.Gaps(5), (Ranges{{0, 5}}));
}

TEST(RangeSetTest, RangesBeyondTheEndAreIgnoredByGaps) {
  RangeSet s;
  s.Add(0, 10);
  s.Add(200, 300);
  s.Add(400, 500);
  EXPECT_EQ(s.Gaps(100), (Ranges{{10, 100}}));
  EXPECT_EQ(s.Gaps(250), (Ranges{{10, 200}}));
  // A range that runs past `end` does not leave a gap after it.
  RangeSet t;
  t.Add(5, 1000);
  EXPECT_EQ(t.Gaps(100), (Ranges{{0, 5}}));
  EXPECT_EQ(t.Ranges(), (Ranges{{5, 1000}}));  // Ranges is not clipped
}

TEST(RangeSetTest, GapsNearTheTopOfTheRange) {
  RangeSet s;
  s.Add(kMax - 10, kMax);
  EXPECT_EQ(s.Gaps(kMax), (Ranges{{0, kMax - 10}}));
  s.Add(0, kMax - 20);
  EXPECT_EQ(s.Gaps(kMax), (Ranges{{kMax - 20, kMax - 10}}));
}

/// Gaps and Ranges against a byte map, with random adds: together they tile [0, end).
TEST(RangeSetTest, GapsAndRangesMatchABitmapModel) {
  constexpr std::uint64_t kUniverse = 200;
  std::mt19937 rng(4242);
  for (int round = 0; round < 100; ++round) {
    RangeSet s;
    std::vector<bool> model(kUniverse + 50, false);
    int adds = std::uniform_int_distribution<int>(0, 12)(rng);
    for (int i = 0; i < adds; ++i) {
      std::uint64_t a = std::uniform_int_distribution<std::uint64_t>(0, kUniverse + 40)(rng);
      std::uint64_t b = a + std::uniform_int_distribution<std::uint64_t>(0, 30)(rng);
      b = std::min<std::uint64_t>(b, kUniverse + 50);
      s.Add(a, b);
      for (std::uint64_t x = a; x < b; ++x) model[x] = true;
    }
    std::uint64_t end = std::uniform_int_distribution<std::uint64_t>(0, kUniverse)(rng);
    Ranges want_gaps;
    for (std::uint64_t x = 0; x < end; ++x) {
      if (model[x]) continue;
      if (!want_gaps.empty() && want_gaps.back().second == x) {
        ++want_gaps.back().second;
      } else {
        want_gaps.emplace_back(x, x + 1);
      }
    }
    ASSERT_EQ(s.Gaps(end), want_gaps) << "round " << round << " end " << end;
    Ranges want_ranges;
    for (std::uint64_t x = 0; x < model.size(); ++x) {
      if (!model[x]) continue;
      if (!want_ranges.empty() && want_ranges.back().second == x) {
        ++want_ranges.back().second;
      } else {
        want_ranges.emplace_back(x, x + 1);
      }
    }
    ASSERT_EQ(s.Ranges(), want_ranges) << "round " << round;
  }
}

}  // namespace
}  // namespace braid
