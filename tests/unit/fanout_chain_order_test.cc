#include "agent/fanout/chain_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "agent/fanout/rtt_matrix.h"

namespace braid {
namespace {

/// RTTs as distances between points in a plane (the source first).
RttMatrix FromPoints(const std::vector<std::pair<double, double>>& points) {
  RttMatrix rtt(points.size());
  for (std::size_t a = 0; a < points.size(); ++a) {
    for (std::size_t b = 0; b < points.size(); ++b) {
      double dx = points[a].first - points[b].first;
      double dy = points[a].second - points[b].second;
      rtt.Set(a, b, std::sqrt(dx * dx + dy * dy));
    }
  }
  return rtt;
}

/// The cheapest order of all, by trying every one.
double BestCost(const RttMatrix& rtt) {
  std::vector<int> order;
  for (int v = 1; v < static_cast<int>(rtt.size()); ++v) order.push_back(v);
  double best = PathCost(rtt, order);
  while (std::next_permutation(order.begin(), order.end())) {
    best = std::min(best, PathCost(rtt, order));
  }
  return best;
}

TEST(RttMatrixTest, DropsWhatIsNoTime) {
  RttMatrix rtt(3);
  rtt.Set(0, 1, -1);
  rtt.Set(0, 2, std::numeric_limits<double>::quiet_NaN());
  rtt.Set(1, 2, std::numeric_limits<double>::infinity());
  EXPECT_FALSE(rtt.Measured(0, 1));
  EXPECT_FALSE(rtt.Measured(0, 2));
  EXPECT_FALSE(rtt.Measured(1, 2));
  rtt.Set(0, 1, 0);
  EXPECT_EQ(rtt.Measured(0, 1), 0.0);
}

TEST(RttMatrixTest, BetweenTakesEitherDirectionOrTheirMean) {
  RttMatrix rtt(3);
  rtt.Set(0, 1, 4);
  EXPECT_EQ(rtt.Between(1, 0), 4.0);
  rtt.Set(1, 0, 6);
  EXPECT_EQ(rtt.Between(0, 1), 5.0);
  EXPECT_FALSE(rtt.Between(0, 2));
}

TEST(InferSitesTest, SplitsTwoSitesAtTheWideArea) {
  // src, a1, b1, a2, b2: the a's beside the source, the b's 50 ms away.
  RttMatrix rtt(5);
  const std::vector<int> at_b = {0, 0, 1, 0, 1};
  for (std::size_t x = 0; x < 5; ++x) {
    for (std::size_t y = x + 1; y < 5; ++y) rtt.SetBoth(x, y, at_b[x] == at_b[y] ? 0.2 : 50);
  }
  EXPECT_EQ(InferSites(rtt), (std::vector<int>{0, 0, 1, 0, 1}));
  // With a threshold past the wide area, all are one site.
  EXPECT_EQ(InferSites(rtt, 60), (std::vector<int>{0, 0, 0, 0, 0}));
}

TEST(InferSitesTest, JoinsThroughANeighbourAndLeavesTheUnmeasuredAlone) {
  RttMatrix rtt(4);
  rtt.SetBoth(0, 1, 0.5);
  rtt.Set(2, 1, 0.5);  // one direction is enough; 2 and 0 were never measured
  // Node 3 has no measurement at all: a site of its own.
  EXPECT_EQ(InferSites(rtt), (std::vector<int>{0, 0, 0, 1}));
}

TEST(ChainOrderTest, TwoOptUncrossesWhatNearestNeighbourCrossed) {
  // Nearest neighbour goes (3,1), (3,5), (7,4), (9,2) and only then back to (0,8).
  const RttMatrix rtt = FromPoints({{0, 0}, {7, 4}, {3, 1}, {0, 8}, {3, 5}, {9, 2}});
  const std::vector<int> greedy = NearestNeighbourOrder(rtt);
  EXPECT_EQ(greedy, (std::vector<int>{2, 4, 1, 5, 3}));
  const std::vector<int> improved = ImproveByTwoOpt(rtt, greedy);
  EXPECT_LT(PathCost(rtt, improved), PathCost(rtt, greedy) - 4);
  EXPECT_NEAR(PathCost(rtt, improved), BestCost(rtt), 1e-9);
  EXPECT_EQ(OrderByRtt(rtt), improved);
  std::vector<int> sorted = improved;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{1, 2, 3, 4, 5})) << "every destination once";
}

TEST(ChainOrderTest, TwoOptLeavesAnOptimalOrderAlone) {
  const RttMatrix rtt = FromPoints({{0, 0}, {1, 0}, {2, 0}, {3, 0}});
  EXPECT_EQ(ImproveByTwoOpt(rtt, {1, 2, 3}), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(ImproveByTwoOpt(rtt, {3, 2, 1}), (std::vector<int>{1, 2, 3}));
}

TEST(ChainOrderTest, KeepsSitesTogetherWhenGivenInterleaved) {
  // src, a1, b1, a2, b2, a3: the b's 50 ms away.
  const std::vector<int> at_b = {0, 0, 1, 0, 1, 0};
  RttMatrix rtt(6);
  for (std::size_t x = 0; x < 6; ++x) {
    for (std::size_t y = x + 1; y < 6; ++y) {
      rtt.SetBoth(x, y, at_b[x] == at_b[y] ? 0.1 + 0.01 * static_cast<double>(x + y) : 50);
    }
  }
  std::vector<int> order = OrderByRtt(rtt);
  int switches = 0;
  for (std::size_t i = 1; i < order.size(); ++i) {
    switches +=
        at_b[static_cast<std::size_t>(order[i])] != at_b[static_cast<std::size_t>(order[i - 1])];
  }
  EXPECT_EQ(switches, 1) << "the a's, then the b's";
  EXPECT_EQ(at_b[static_cast<std::size_t>(order.front())], 0) << "the source's site first";
}

TEST(ChainOrderTest, AvoidsUnmeasuredHops) {
  // Only src-d2, d2-d1 and d1-d3 were measured: the order that uses only
  // those is d2, d1, d3, not the order given.
  RttMatrix rtt(4);
  rtt.SetBoth(0, 2, 1);
  rtt.Set(2, 1, 1);
  rtt.SetBoth(1, 3, 1);
  const std::vector<int> order = OrderByRtt(rtt);
  EXPECT_EQ(order, (std::vector<int>{2, 1, 3}));
  EXPECT_DOUBLE_EQ(PathCost(rtt, order), 3);
  EXPECT_DOUBLE_EQ(HopCost(rtt, 0, 1), kUnknownHopMs);
}

TEST(ChainOrderTest, NothingMeasuredKeepsTheOrderGiven) {
  const RttMatrix rtt(5);
  EXPECT_EQ(OrderByRtt(rtt), (std::vector<int>{1, 2, 3, 4}));
}

TEST(ChainOrderTest, OneDestinationOrNone) {
  RttMatrix one(2);
  EXPECT_EQ(OrderByRtt(one), (std::vector<int>{1}));
  one.SetBoth(0, 1, 3);
  EXPECT_DOUBLE_EQ(PathCost(one, {1}), 3);
  EXPECT_TRUE(OrderByRtt(RttMatrix(1)).empty());
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

TEST(RttMatrixTest, CoarsenedTiesWhatIsWithinASiteAndKeepsTheWideArea) {
  RttMatrix rtt(4);
  rtt.SetBoth(0, 1, 0.31);
  rtt.SetBoth(0, 2, 0.02);
  rtt.SetBoth(1, 2, 0.4);
  rtt.Set(0, 3, 50.3);
  RttMatrix coarse = Coarsened(rtt);
  EXPECT_EQ(coarse.Measured(0, 1), 2.0);
  EXPECT_EQ(coarse.Measured(0, 2), 2.0);
  EXPECT_EQ(coarse.Measured(0, 3), 52.0);
  EXPECT_FALSE(coarse.Measured(3, 0).has_value()) << "what was not measured stays so";
  // Noise within the site no longer reorders the chain: the order given stands.
  EXPECT_EQ(OrderByRtt(coarse), (std::vector<int>{1, 2, 3}));
  EXPECT_NE(OrderByRtt(rtt), (std::vector<int>{1, 2, 3}));
}

}  // namespace
}  // namespace braid
