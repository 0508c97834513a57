#pragma once
/// Test helper: made-up networks for the planner of a copy to many destinations.

#include <string>
#include <vector>

#include "agent/fanout/fanout_network.h"

namespace braid {

constexpr double kMiB = 1024.0 * 1024.0;

/// A source "src" and destinations "d1".."dN" with every capacity `link` (disk and CPU
/// unlimited) and no RTTs yet.
inline FanoutNetwork Nodes(int destinations, double link) {
  FanoutNetwork network;
  const auto n = static_cast<std::size_t>(destinations) + 1;
  for (std::size_t i = 0; i < n; ++i) {
    FanoutNode node;
    node.name = i == 0 ? "src" : "d" + std::to_string(i);
    node.capacity.net_in = link;
    node.capacity.net_out = link;
    network.nodes.push_back(node);
  }
  network.rtt = RttMatrix(n);
  return network;
}

/// Nodes(...) on one switch: 0.1 ms between any two, every site 0.
inline FanoutNetwork FlatSwitch(int destinations, double link) {
  FanoutNetwork network = Nodes(destinations, link);
  for (std::size_t a = 0; a < network.nodes.size(); ++a) {
    network.nodes[a].site = 0;
    for (std::size_t b = a + 1; b < network.nodes.size(); ++b) network.rtt.SetBoth(a, b, 0.1);
  }
  return network;
}

inline NodeCapacity& CapacityOf(FanoutNetwork& network, int node) {
  return network.nodes[static_cast<std::size_t>(node)].capacity;
}

}  // namespace braid
