#pragma once
/// The logical topologies a copy to many destinations can take, as the
/// parent of every node (node 0 the source, parent -1), built over an order
/// of the destinations (chain_order) so that neighbours in the order are
/// neighbours in the layout.

#include <cstddef>
#include <vector>

namespace braid {

/// source -> order[0] -> order[1] -> ...
std::vector<int> ChainParents(std::size_t nodes, const std::vector<int>& order);

/// A tree in which each node sends to at most `fanout` children, laid out in
/// preorder over `order`: the destinations are cut into `fanout` runs as equal
/// as can be, the first of each run is a child of the source, and the rest of
/// the run is its subtree, built the same way. Each subtree is a run of the
/// order, so the hosts of one site stay in as few subtrees as they can.
std::vector<int> TreeParents(std::size_t nodes, const std::vector<int>& order, int fanout);

/// source -> every destination.
std::vector<int> StarParents(std::size_t nodes);

/// The most hops from the source to any node (0 for the source alone).
int Depth(const std::vector<int>& parent);

}  // namespace braid
