#pragma once
/// What the planner of a copy to many destinations knows of the network:
/// the nodes (node 0 the source, then the destinations), their capacities,
/// the RTTs between them, and the capacity of the links between sites.
/// Capacities are in bytes per second; one not known is kUnlimited, so it
/// constrains nothing.

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "agent/fanout/rtt_matrix.h"

namespace braid {

constexpr double kUnlimited = std::numeric_limits<double>::infinity();

struct NodeCapacity {
  double net_in = kUnlimited;   ///< what the node's own link takes in
  double net_out = kUnlimited;  ///< what its link sends, shared by every stream it sends
  /// What it writes to its disk (a destination stores everything it receives).
  double disk_write = kUnlimited;
  /// What its CPU seals and sends on one stream; every child costs it a stream
  /// (each hop has its own secret), so its children share this.
  double forward_cpu = kUnlimited;
};

struct FanoutNode {
  std::string name;         ///< as messages show it: the host
  int site = kUnknownSite;  ///< nodes of one site share a switch; see InferSites
  NodeCapacity capacity;
};

/// The path between two sites (a wide-area link): `capacity` in each
/// direction, shared by every logical stream that crosses it that way.
struct SiteLink {
  int site_a = kUnknownSite;
  int site_b = kUnknownSite;
  double capacity = kUnlimited;
};

struct FanoutNetwork {
  std::vector<FanoutNode> nodes;  ///< [0] the source; the destinations as given
  RttMatrix rtt;                  ///< size() == nodes.size()
  std::vector<SiteLink> links;    ///< a pair of sites not listed is unconstrained
};

}  // namespace braid
