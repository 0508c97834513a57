#include "agent/fanout/layout_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "agent/fanout/plan_text.h"
#include "fanout_networks.h"

namespace braid {
namespace {

constexpr Topology kAuto{TopologyKind::kAuto, 0};
constexpr Topology kChain{TopologyKind::kChain, 0};
constexpr Topology kStar{TopologyKind::kStar, 0};

double Considered(const FanoutPlan& plan, Topology topology) {
  for (const LayoutEstimate& estimate : plan.considered) {
    if (estimate.topology == topology) return estimate.rate;
  }
  ADD_FAILURE() << TopologyText(topology) << " was not weighed";
  return 0;
}

/// How many hops of the plan go from site `from` to site `to`.
int Crossings(const FanoutNetwork& network, const FanoutPlan& plan, int from, int to) {
  int count = 0;
  for (const FanoutEdge& edge : plan.edges) {
    count += network.nodes[static_cast<std::size_t>(edge.parent)].site == from &&
             network.nodes[static_cast<std::size_t>(edge.child)].site == to;
  }
  return count;
}

/// src and a1..a3 at one site, b1..b3 at another 50 ms away over a 100 MiB/s
/// link, every host's own link 1000 MiB/s; the list given interleaved
/// (a1, b1, a2, b2, a3, b3), the sites inferred from the RTTs.
FanoutNetwork TwoSites() {
  FanoutNetwork network = Nodes(6, 1000 * kMiB);
  const std::vector<std::string> names = {"src", "a1", "b1", "a2", "b2", "a3", "b3"};
  for (std::size_t x = 0; x < 7; ++x) {
    network.nodes[x].name = names[x];
    for (std::size_t y = x + 1; y < 7; ++y) {
      const bool same = names[x][0] == names[y][0] || (names[x] == "src" && names[y][0] == 'a');
      network.rtt.SetBoth(x, y, same ? 0.1 + 0.01 * static_cast<double>(x + y) : 50);
    }
  }
  const std::vector<int> sites = InferSites(network.rtt);
  for (std::size_t x = 0; x < 7; ++x) network.nodes[x].site = sites[x];
  network.links.push_back({0, 1, 100 * kMiB});
  return network;
}

TEST(LayoutPlannerTest, OnAFlatSwitchTheChainRunsAtTheSlowestNodesRate) {
  const FanoutNetwork network = FlatSwitch(4, 100 * kMiB);
  const FanoutPlan plan = PlanFanout(network, kAuto);
  EXPECT_EQ(plan.topology, kChain);
  EXPECT_DOUBLE_EQ(plan.rate, 100 * kMiB);
  EXPECT_DOUBLE_EQ(Considered(plan, kStar), 25 * kMiB);
  EXPECT_DOUBLE_EQ(Considered(plan, (Topology{TopologyKind::kTree, 2})), 50 * kMiB);
  EXPECT_NEAR(Considered(plan, (Topology{TopologyKind::kTree, 3})), 100 * kMiB / 3, 1e-6);
  EXPECT_EQ(plan.considered.size(), 4u) << "chain, tree:2, tree:3, star; tree:4 is the star";
  ASSERT_EQ(plan.edges.size(), 4u);
  EXPECT_EQ(plan.edges[0].parent, 0);
  for (std::size_t i = 1; i < plan.edges.size(); ++i) {
    EXPECT_EQ(plan.edges[i].parent, plan.edges[i - 1].child) << "a chain";
  }
}

TEST(LayoutPlannerTest, OnAFlatSwitchOfUnequalNodesTheRateIsTheLeastNodeRate) {
  FanoutNetwork network = FlatSwitch(4, 100 * kMiB);
  CapacityOf(network, 0).net_out = 90 * kMiB;
  CapacityOf(network, 2).net_in = 80 * kMiB;
  CapacityOf(network, 3).disk_write = 70 * kMiB;
  CapacityOf(network, 4).net_out = 60 * kMiB;  // forwards slowly: it goes last
  const FanoutPlan plan = PlanFanout(network, kAuto);
  EXPECT_DOUBLE_EQ(plan.rate, 70 * kMiB);
  EXPECT_EQ(plan.bound.kind, ConstraintKind::kDiskWrite);
  EXPECT_EQ(plan.bound.node, 3);
}

TEST(LayoutPlannerTest, TheChainCrossesTheSlowLinkOnceAndTheStarOncePerHost) {
  const FanoutNetwork network = TwoSites();
  ASSERT_EQ(network.nodes[2].site, 1);
  const FanoutPlan chain = PlanFanout(network, kChain);
  EXPECT_EQ(Crossings(network, chain, 0, 1), 1);
  EXPECT_EQ(Crossings(network, chain, 1, 0), 0);
  std::vector<int> here(chain.order.begin(), chain.order.begin() + 3);
  std::sort(here.begin(), here.end());
  EXPECT_EQ(here, (std::vector<int>{1, 3, 5})) << "the a's first, in some order";
  EXPECT_DOUBLE_EQ(chain.rate, 100 * kMiB);
  const FanoutPlan star = PlanFanout(network, kStar);
  EXPECT_EQ(Crossings(network, star, 0, 1), 3);
  EXPECT_NEAR(star.rate, 100 * kMiB / 3, 1e-6);
  EXPECT_EQ(star.bound.kind, ConstraintKind::kSiteLink);
  const FanoutPlan best = PlanFanout(network, kAuto);
  EXPECT_EQ(Crossings(network, best, 0, 1), 1) << TopologyText(best.topology);
  EXPECT_DOUBLE_EQ(best.rate, 100 * kMiB);
  EXPECT_NE(best.topology, kStar);
}

TEST(LayoutPlannerTest, ANodeThatForwardsSlowlyGoesLast) {
  FanoutNetwork network = FlatSwitch(4, 100 * kMiB);
  CapacityOf(network, 2).net_out = 10 * kMiB;
  const FanoutPlan plan = PlanFanout(network, kChain);
  EXPECT_EQ(plan.order.back(), 2);
  EXPECT_DOUBLE_EQ(plan.rate, 100 * kMiB) << "last, it forwards nothing";
}

TEST(LayoutPlannerTest, ANodeThatReceivesSlowlyGoesLastAndHoldsUpNoOne) {
  FanoutNetwork network = FlatSwitch(4, 100 * kMiB);
  CapacityOf(network, 2).net_in = 10 * kMiB;
  const FanoutPlan plan = PlanFanout(network, kAuto);
  EXPECT_EQ(plan.topology, kChain);
  EXPECT_EQ(plan.order.back(), 2);
  EXPECT_DOUBLE_EQ(plan.rate, 10 * kMiB);
  EXPECT_EQ(plan.bound.kind, ConstraintKind::kNetIn);
  EXPECT_EQ(plan.bound.node, 2);
  for (const FanoutEdge& edge : plan.edges) {
    if (edge.child != 2) {
      EXPECT_DOUBLE_EQ(edge.rate, 100 * kMiB) << "d" << edge.child;
    }
  }
}

TEST(LayoutPlannerTest, ASlowDiskBoundsTheCopyAndIsNamed) {
  FanoutNetwork network = FlatSwitch(4, 100 * kMiB);
  CapacityOf(network, 3).disk_write = 20 * kMiB;
  const FanoutPlan plan = PlanFanout(network, kAuto);
  EXPECT_DOUBLE_EQ(plan.rate, 20 * kMiB);
  EXPECT_EQ(plan.bound.kind, ConstraintKind::kDiskWrite);
  EXPECT_EQ(plan.bound.node, 3);
  EXPECT_EQ(plan.order.back(), 3);
  EXPECT_EQ(ConstraintText(network, plan.bound), "d3's disk write (20.0 MiB/s)");
}

TEST(LayoutPlannerTest, TheStarWinsWhereTheSourceIsFastAndForwardingIsNot) {
  FanoutNetwork network = FlatSwitch(4, 100 * kMiB);
  CapacityOf(network, 0).net_out = 1000 * kMiB;
  for (int v = 1; v <= 4; ++v) CapacityOf(network, v).forward_cpu = 10 * kMiB;
  const FanoutPlan plan = PlanFanout(network, kAuto);
  EXPECT_EQ(plan.topology, kStar);
  EXPECT_DOUBLE_EQ(plan.rate, 100 * kMiB);
  EXPECT_EQ(plan.bound.kind, ConstraintKind::kNetIn);
  EXPECT_DOUBLE_EQ(Considered(plan, kChain), 10 * kMiB);
  // With forwarding as fast as the links, the star's rate is the chain's:
  // it wins the tie as the shallower.
  for (int v = 1; v <= 4; ++v) CapacityOf(network, v).forward_cpu = kUnlimited;
  const FanoutPlan tie = PlanFanout(network, kAuto);
  EXPECT_DOUBLE_EQ(Considered(tie, kChain), Considered(tie, kStar));
  EXPECT_EQ(tie.topology, kStar);
  // With a source no faster than the rest, the star shares its uplink and loses.
  CapacityOf(network, 0).net_out = 100 * kMiB;
  EXPECT_EQ(PlanFanout(network, kAuto).topology, kChain);
}

TEST(LayoutPlannerTest, AutoKeepsTheFastestItWeighed) {
  std::mt19937 random(16);
  std::uniform_real_distribution<double> rate(10 * kMiB, 1000 * kMiB);
  std::uniform_real_distribution<double> ms(0.05, 80);
  for (int round = 0; round < 200; ++round) {
    FanoutNetwork network = Nodes(1 + round % 7, kUnlimited);
    for (std::size_t v = 0; v < network.nodes.size(); ++v) {
      network.nodes[v].capacity = {rate(random), rate(random), rate(random), rate(random)};
      for (std::size_t w = v + 1; w < network.nodes.size(); ++w)
        network.rtt.SetBoth(v, w, ms(random));
    }
    const FanoutPlan plan = PlanFanout(network, kAuto);
    for (const LayoutEstimate& estimate : plan.considered) {
      EXPECT_GE(plan.rate * (1 + 1e-9), estimate.rate) << TopologyText(estimate.topology);
    }
    EXPECT_DOUBLE_EQ(EvaluateLayout(network, plan.parent).Rate(), plan.rate);
  }
}

TEST(LayoutPlannerTest, ALayoutAskedForIsTheOneLaidOut) {
  const FanoutNetwork network = FlatSwitch(6, 100 * kMiB);
  const FanoutPlan tree = PlanFanout(network, {TopologyKind::kTree, 2});
  EXPECT_EQ(tree.topology, (Topology{TopologyKind::kTree, 2}));
  ASSERT_EQ(tree.considered.size(), 1u);
  std::vector<int> children(7, 0);
  for (const FanoutEdge& edge : tree.edges) ++children[static_cast<std::size_t>(edge.parent)];
  EXPECT_EQ(*std::max_element(children.begin(), children.end()), 2);
  EXPECT_DOUBLE_EQ(tree.rate, 50 * kMiB);
}

TEST(LayoutPlannerTest, UnmeasuredRttsStillGiveAPlan) {
  FanoutNetwork network = Nodes(3, 100 * kMiB);
  network.rtt.SetBoth(0, 3, 1);  // only the source to d3 and d3 to d1 were measured
  network.rtt.SetBoth(3, 1, 1);
  const FanoutPlan plan = PlanFanout(network, kChain);
  EXPECT_EQ(plan.order, (std::vector<int>{3, 1, 2}));
  EXPECT_DOUBLE_EQ(plan.rate, 100 * kMiB);
  const std::string text = PlanText(network, plan);
  EXPECT_NE(text.find("  d1 -> d2: 100.0 MiB/s, RTT unknown\n"), std::string::npos) << text;
}

TEST(LayoutPlannerTest, OneDestinationIsOneHop) {
  FanoutNetwork network = FlatSwitch(1, 100 * kMiB);
  CapacityOf(network, 1).disk_write = 40 * kMiB;
  const FanoutPlan plan = PlanFanout(network, kAuto);
  EXPECT_EQ(plan.topology, kChain) << "every layout is one hop; the first tried is kept";
  EXPECT_EQ(plan.order, (std::vector<int>{1}));
  ASSERT_EQ(plan.edges.size(), 1u);
  EXPECT_EQ(plan.edges[0].parent, 0);
  EXPECT_DOUBLE_EQ(plan.rate, 40 * kMiB);
  EXPECT_EQ(plan.considered.size(), 2u) << "chain and star";
}

TEST(LayoutPlannerTest, NoDestinationsIsAnEmptyPlan) {
  const FanoutPlan plan = PlanFanout(Nodes(0, 100 * kMiB), kAuto);
  EXPECT_TRUE(plan.edges.empty());
  EXPECT_TRUE(plan.order.empty());
}

TEST(PlanTextTest, NamesTheLayoutItsBoundTheWeighedAndEachHop) {
  const FanoutNetwork network = TwoSites();
  const std::string text = PlanText(network, PlanFanout(network, kChain));
  EXPECT_EQ(text,
            "layout chain: 100.0 MiB/s predicted, bound by the link from site 0 to site 1 "
            "(100.0 MiB/s)\n"
            "  src -> a1: 1000.0 MiB/s, RTT 0.1 ms\n"
            "  a1 -> a2: 1000.0 MiB/s, RTT 0.1 ms\n"
            "  a2 -> a3: 1000.0 MiB/s, RTT 0.2 ms\n"
            "  a3 -> b2: 100.0 MiB/s, RTT 50.0 ms, site 0 -> 1\n"
            "  b2 -> b1: 100.0 MiB/s, RTT 0.2 ms\n"
            "  b1 -> b3: 100.0 MiB/s, RTT 0.2 ms\n");
  const std::string weighed = PlanText(network, PlanFanout(network, kAuto));
  EXPECT_NE(weighed.find("weighed: chain 100.0 MiB/s, tree:2 100.0 MiB/s, tree:3 "),
            std::string::npos)
      << weighed;
  EXPECT_NE(weighed.find(", star 33.3 MiB/s\n"), std::string::npos) << weighed;
}

TEST(PlanTextTest, ConstraintsSayWhatSharesThem) {
  FanoutNetwork network = FlatSwitch(2, 100 * kMiB);
  EXPECT_EQ(ConstraintText(network, {ConstraintKind::kNetOut, 0, -1, -1, 100 * kMiB, 2}),
            "src's network out (100.0 MiB/s shared by 2 streams)");
  EXPECT_EQ(ConstraintText(network, {ConstraintKind::kForwardCpu, 1, -1, -1, 8 * kMiB, 1}),
            "d1's forwarding CPU (8.0 MiB/s)");
  EXPECT_EQ(ConstraintText(network, {}), "no capacity known");
  EXPECT_EQ(RateText(kUnlimited), "unbounded");
}

}  // namespace
}  // namespace braid
