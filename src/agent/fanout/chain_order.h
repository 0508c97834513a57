#pragma once
/// The order of a chain from the source through every destination that
/// minimises the sum of its hops' RTTs, so the hosts of one site are
/// consecutive and the wide area is crossed once per site: nearest neighbour
/// from the source, then 2-opt (an open path, the source fixed at its head).

#include <vector>

#include "agent/fanout/rtt_matrix.h"

namespace braid {

/// What a hop whose RTT was not measured costs the order: more than any path
/// of measured hops could, so the order takes as few unknown hops as it can.
constexpr double kUnknownHopMs = 1e6;

/// The cost of the hop between `a` and `b`: their RTT, or kUnknownHopMs.
double HopCost(const RttMatrix& rtt, int a, int b);

/// The cost of the path source -> order[0] -> order[1] -> ...
double PathCost(const RttMatrix& rtt, const std::vector<int>& order);

/// Every destination (1..size()-1), each next one the nearest to the last;
/// ties go to the one given first.
std::vector<int> NearestNeighbourOrder(const RttMatrix& rtt);

/// Reverses segments of `order` while that shortens the path, until no
/// reversal does (a local optimum: no two hops can be uncrossed).
std::vector<int> ImproveByTwoOpt(const RttMatrix& rtt, std::vector<int> order);

/// Nearest neighbour, then 2-opt.
std::vector<int> OrderByRtt(const RttMatrix& rtt);

}  // namespace braid
