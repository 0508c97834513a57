#pragma once
/// The planner of a copy to many destinations: orders the chain by RTT, lays
/// out the topology asked for (or, for auto, the chain, trees of 2 to 4 and
/// the star), predicts each one's rate with the Partition Cast model, and
/// keeps the best. Pure: what it knows of the network is passed in.
/// Not wired to a command yet (issue 16, item 3).

#include <vector>

#include "agent/fanout/fanout_network.h"
#include "agent/fanout/partition_cast.h"
#include "braid/topology.h"

namespace braid {

/// One hop of the plan and the rate the model predicts at its receiving end.
struct FanoutEdge {
  int parent = 0;
  int child = 0;
  double rate = kUnlimited;  ///< bytes/s
};

/// A layout that was weighed, and its predicted rate.
struct LayoutEstimate {
  Topology topology;
  double rate = kUnlimited;
};

struct FanoutPlan {
  Topology topology;        ///< the layout chosen, never kAuto
  std::vector<int> order;   ///< the destinations (node indices) in chain order
  std::vector<int> parent;  ///< per node; -1 for the source
  /// Every hop, by its child's place in `order` (so a chain reads as a chain).
  std::vector<FanoutEdge> edges;
  double rate = kUnlimited;                ///< the copy's rate: its slowest destination's
  Constraint bound;                        ///< what bounds that rate
  std::vector<LayoutEstimate> considered;  ///< each layout weighed, in the order tried
};

/// Plans the copy to network.nodes[1..] from network.nodes[0]. `topology` kAuto
/// weighs them all; any other is laid out as asked. Ties in rate go to the
/// layout whose destinations finish sooner on the whole, then to the
/// shallower one (fewer store-and-forward hops, fewer nodes cut off by one
/// that dies), then to the one tried first.
/// network.rtt must have a row per node; with no destinations the plan is empty.
FanoutPlan PlanFanout(const FanoutNetwork& network, Topology topology);

}  // namespace braid
