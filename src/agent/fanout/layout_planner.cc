#include "agent/fanout/layout_planner.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <utility>

#include "agent/fanout/chain_order.h"
#include "agent/fanout/layouts.h"

namespace braid {
namespace {

/// The widest tree auto weighs: wider ones share a node's link among so many
/// children that they are a star in all but the hops they add.
constexpr int kAutoTreeFanoutMax = 4;

/// Rates this close are one rate: the model's inputs are measurements.
constexpr double kSameRate = 1e-9;

struct Candidate {
  Topology topology;
  std::vector<int> parent;
  LayoutRates rates;
  double time_sum = 0;  ///< seconds per byte, summed over the destinations
  int depth = 0;
};

bool Near(double a, double b) {
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= kSameRate * std::max(std::abs(a), std::abs(b));
}

Candidate Weigh(const FanoutNetwork& network, Topology topology, std::vector<int> parent) {
  Candidate candidate{topology, std::move(parent), {}, 0, 0};
  candidate.rates = EvaluateLayout(network, candidate.parent);
  for (std::size_t v = 1; v < candidate.parent.size(); ++v) {
    candidate.time_sum += 1.0 / candidate.rates.rate[v];
  }
  candidate.depth = Depth(candidate.parent);
  return candidate;
}

/// The copy's rate first (the time to all N); then the sum of the times to
/// each (others should not wait for a slow one); then fewer hops.
bool Better(const Candidate& a, const Candidate& b) {
  if (!Near(a.rates.Rate(), b.rates.Rate())) return a.rates.Rate() > b.rates.Rate();
  if (!Near(a.time_sum, b.time_sum)) return a.time_sum < b.time_sum;
  return a.depth < b.depth;
}

/// The chain in RTT order; but when a destination bounds it, with that one
/// moved last, where it forwards to no one and holds up no one, if the model
/// says that is better (the wide area may be crossed once more for it).
std::vector<int> ChainOrder(const FanoutNetwork& network) {
  const std::size_t n = network.nodes.size();
  std::vector<int> order = OrderByRtt(network.rtt);
  const Topology chain{TopologyKind::kChain, 0};
  const Candidate by_rtt = Weigh(network, chain, ChainParents(n, order));
  const int slow = by_rtt.rates.Bound().node;
  if (slow <= 0 || slow == order.back()) return order;
  std::vector<int> moved = order;
  moved.erase(std::find(moved.begin(), moved.end(), slow));
  moved.push_back(slow);
  return Better(Weigh(network, chain, ChainParents(n, moved)), by_rtt) ? moved : order;
}

/// What to weigh: the layout asked for, or for auto the chain, the trees
/// narrower than the destinations (a wider one is the star), and the star.
std::vector<Topology> Layouts(Topology asked, std::size_t destinations) {
  if (asked.kind != TopologyKind::kAuto) return {asked};
  std::vector<Topology> layouts = {{TopologyKind::kChain, 0}};
  for (int k = kMinTreeFanout;
       k <= kAutoTreeFanoutMax && static_cast<std::size_t>(k) < destinations; ++k) {
    layouts.push_back({TopologyKind::kTree, k});
  }
  layouts.push_back({TopologyKind::kStar, 0});
  return layouts;
}

std::vector<int> Parents(Topology layout, std::size_t nodes, const std::vector<int>& order) {
  switch (layout.kind) {
    case TopologyKind::kTree:
      return TreeParents(nodes, order, layout.fanout);
    case TopologyKind::kStar:
      return StarParents(nodes);
    case TopologyKind::kChain:
    case TopologyKind::kAuto:
      break;
  }
  return ChainParents(nodes, order);
}

FanoutPlan PlanOf(const Candidate& chosen, std::vector<int> order) {
  FanoutPlan plan;
  plan.topology = chosen.topology;
  plan.order = std::move(order);
  plan.parent = chosen.parent;
  for (int node : plan.order) {
    const auto at = static_cast<std::size_t>(node);
    plan.edges.push_back({chosen.parent[at], node, chosen.rates.rate[at]});
  }
  plan.rate = chosen.rates.Rate();
  plan.bound = chosen.rates.Bound();
  return plan;
}

}  // namespace

FanoutPlan PlanFanout(const FanoutNetwork& network, Topology topology) {
  const std::size_t n = network.nodes.size();
  if (n == 0 || network.rtt.size() != n) std::abort();  // no source, or RTTs of other nodes
  if (n == 1) {
    FanoutPlan empty;
    empty.topology = Layouts(topology, 0).front();
    empty.parent = {-1};
    return empty;
  }
  std::vector<int> order = ChainOrder(network);
  std::optional<Candidate> best;
  std::vector<LayoutEstimate> considered;
  for (Topology layout : Layouts(topology, n - 1)) {
    Candidate candidate = Weigh(network, layout, Parents(layout, n, order));
    considered.push_back({layout, candidate.rates.Rate()});
    if (!best || Better(candidate, *best)) best = std::move(candidate);
  }
  FanoutPlan plan = PlanOf(*best, std::move(order));
  plan.considered = std::move(considered);
  return plan;
}

}  // namespace braid
