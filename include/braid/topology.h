#pragma once
/// The layout of a copy to many destinations (issue 16's --topology): which
/// logical topology the data takes from the source. Header-only vocabulary,
/// so Options can carry it without knowing the planner that evaluates it
/// (src/agent/fanout), and the command line can parse it (cli/topology_parser).

#include <cstdint>
#include <string>

namespace braid {

enum class TopologyKind : std::uint8_t {
  kAuto,   ///< the planner evaluates the others and takes the fastest
  kChain,  ///< source -> d1 -> d2 -> ... (Dolly's multi-drop chain)
  kTree,   ///< each node forwards to at most `fanout` children
  kStar,   ///< the source sends to every destination itself
};

/// The smallest and largest K of tree:K (tree:1 is a chain; a wider tree than
/// this shares a node's link too thinly to be worth forwarding through).
constexpr int kMinTreeFanout = 2;
constexpr int kMaxTreeFanout = 64;

struct Topology {
  TopologyKind kind = TopologyKind::kAuto;
  int fanout = 0;  ///< K of tree:K; 0 for the others

  bool operator==(const Topology&) const = default;
};

/// As --topology takes it: "chain", "tree:2", "star", "auto".
inline std::string TopologyText(Topology topology) {
  switch (topology.kind) {
    case TopologyKind::kChain:
      return "chain";
    case TopologyKind::kTree:
      return "tree:" + std::to_string(topology.fanout);
    case TopologyKind::kStar:
      return "star";
    case TopologyKind::kAuto:
      break;
  }
  return "auto";
}

}  // namespace braid
