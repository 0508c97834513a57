#include "agent/fanout/partition_cast.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "agent/fanout/layouts.h"
#include "fanout_networks.h"

namespace braid {
namespace {

TEST(PartitionCastTest, AStarSharesTheSourceUplinkAndAChainDoesNot) {
  const FanoutNetwork network = FlatSwitch(4, 100 * kMiB);
  const LayoutRates star = EvaluateLayout(network, StarParents(5));
  EXPECT_DOUBLE_EQ(star.Rate(), 25 * kMiB);
  EXPECT_EQ(star.Bound().kind, ConstraintKind::kNetOut);
  EXPECT_EQ(star.Bound().node, 0);
  EXPECT_EQ(star.Bound().streams, 4);
  const LayoutRates chain = EvaluateLayout(network, ChainParents(5, {1, 2, 3, 4}));
  EXPECT_DOUBLE_EQ(chain.Rate(), 100 * kMiB);
  EXPECT_EQ(chain.Bound().streams, 1);
}

TEST(PartitionCastTest, ATreeSharesEachForwardersUplinkAmongItsChildren) {
  FanoutNetwork network = FlatSwitch(6, 100 * kMiB);
  CapacityOf(network, 0).net_out = 1000 * kMiB;  // the source is not the limit
  const std::vector<int> parent = TreeParents(7, {1, 2, 3, 4, 5, 6}, 2);
  // Runs of 3: d1 over d2, d3; d4 over d5, d6.
  EXPECT_EQ(parent, (std::vector<int>{-1, 0, 1, 1, 0, 4, 4}));
  EXPECT_EQ(Depth(parent), 2);
  const LayoutRates tree = EvaluateLayout(network, parent);
  EXPECT_DOUBLE_EQ(tree.rate[1], 100 * kMiB) << "the source sends 500 MiB/s to each child";
  EXPECT_DOUBLE_EQ(tree.Rate(), 50 * kMiB);
  EXPECT_EQ(tree.Bound().kind, ConstraintKind::kNetOut);
  EXPECT_EQ(tree.Bound().node, 1);
}

TEST(PartitionCastTest, ASiteLinkIsSharedByTheStreamsThatCrossIt) {
  // src and d1 at site 0; d2, d3 at site 1, 40 MiB/s away.
  FanoutNetwork network = Nodes(3, 100 * kMiB);
  for (int v : {2, 3}) network.nodes[static_cast<std::size_t>(v)].site = 1;
  network.nodes[0].site = network.nodes[1].site = 0;
  CapacityOf(network, 0).net_out = 1000 * kMiB;
  network.links.push_back({1, 0, 40 * kMiB});  // either order names the same link
  const LayoutRates star = EvaluateLayout(network, StarParents(4));
  EXPECT_DOUBLE_EQ(star.Rate(), 20 * kMiB);
  EXPECT_EQ(star.Bound().kind, ConstraintKind::kSiteLink);
  EXPECT_EQ(star.Bound().from_site, 0);
  EXPECT_EQ(star.Bound().to_site, 1);
  EXPECT_EQ(star.Bound().streams, 2);
  EXPECT_DOUBLE_EQ(star.rate[1], 100 * kMiB) << "d1 does not cross";
  const LayoutRates chain = EvaluateLayout(network, ChainParents(4, {1, 2, 3}));
  EXPECT_DOUBLE_EQ(chain.Rate(), 40 * kMiB);
}

TEST(PartitionCastTest, EachDirectionOfASiteLinkCarriesItsOwnStreams) {
  // src at site 0, d1 at 1, d2 back at 0: the chain crosses once each way.
  FanoutNetwork network = Nodes(2, 100 * kMiB);
  network.nodes[1].site = 1;
  network.nodes[0].site = network.nodes[2].site = 0;
  network.links.push_back({0, 1, 40 * kMiB});
  const LayoutRates chain = EvaluateLayout(network, ChainParents(3, {1, 2}));
  EXPECT_DOUBLE_EQ(chain.Rate(), 40 * kMiB);
  EXPECT_EQ(chain.Bound().streams, 1);
}

TEST(PartitionCastTest, ASlowNodeHoldsUpOnlyThoseBelowIt) {
  FanoutNetwork network = FlatSwitch(3, 100 * kMiB);
  CapacityOf(network, 2).disk_write = 10 * kMiB;
  const LayoutRates middle = EvaluateLayout(network, ChainParents(4, {1, 2, 3}));
  EXPECT_DOUBLE_EQ(middle.rate[1], 100 * kMiB);
  EXPECT_DOUBLE_EQ(middle.rate[2], 10 * kMiB);
  EXPECT_DOUBLE_EQ(middle.rate[3], 10 * kMiB) << "d2's bounded buffers pass its limit on";
  EXPECT_EQ(middle.bound[3].kind, ConstraintKind::kDiskWrite);
  EXPECT_EQ(middle.bound[3].node, 2);
  const LayoutRates last = EvaluateLayout(network, ChainParents(4, {1, 3, 2}));
  EXPECT_DOUBLE_EQ(last.rate[3], 100 * kMiB);
  EXPECT_DOUBLE_EQ(last.Rate(), 10 * kMiB);
  EXPECT_EQ(last.worst, 2);
}

TEST(PartitionCastTest, ForwardingCpuIsSharedByTheChildrenAndALeafForwardsNothing) {
  FanoutNetwork network = FlatSwitch(3, 100 * kMiB);
  for (int v : {1, 2, 3}) CapacityOf(network, v).forward_cpu = 30 * kMiB;
  const LayoutRates chain = EvaluateLayout(network, ChainParents(4, {1, 2, 3}));
  EXPECT_DOUBLE_EQ(chain.rate[2], 30 * kMiB);
  EXPECT_EQ(chain.Bound().kind, ConstraintKind::kForwardCpu);
  const LayoutRates star = EvaluateLayout(network, StarParents(4));
  EXPECT_NEAR(star.Rate(), 100 * kMiB / 3, 1e-6) << "no destination forwards";
}

TEST(PartitionCastTest, WhatIsNoCapacityCountsAsUnknown) {
  FanoutNetwork network = Nodes(1, kUnlimited);
  EXPECT_EQ(EvaluateLayout(network, StarParents(2)).Bound().kind, ConstraintKind::kNone);
  CapacityOf(network, 1).net_in = -5;
  CapacityOf(network, 1).disk_write = std::numeric_limits<double>::quiet_NaN();
  CapacityOf(network, 0).net_out = 7 * kMiB;
  const LayoutRates rates = EvaluateLayout(network, StarParents(2));
  EXPECT_DOUBLE_EQ(rates.Rate(), 7 * kMiB);
  EXPECT_EQ(rates.Bound().kind, ConstraintKind::kNetOut);
}

TEST(PartitionCastTest, UnknownSitesPostNoLinkConstraint) {
  FanoutNetwork network = Nodes(2, 100 * kMiB);
  network.nodes[1].site = 1;  // the others' sites are unknown
  network.links.push_back({0, 1, 1 * kMiB});
  EXPECT_DOUBLE_EQ(EvaluateLayout(network, ChainParents(3, {1, 2})).Rate(), 100 * kMiB);
}

}  // namespace
}  // namespace braid
