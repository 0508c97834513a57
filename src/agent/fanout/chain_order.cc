#include "agent/fanout/chain_order.h"

#include <algorithm>
#include <cstddef>

namespace braid {
namespace {

/// An improvement smaller than this is rounding, not shorter: without it two
/// reversals of equal cost could undo each other for ever.
constexpr double kMinGainMs = 1e-6;

/// How much reversing order[i..j] shortens the path (the source before
/// order[0]); only the hops at the segment's ends change.
double ReversalGain(const RttMatrix& rtt, const std::vector<int>& order, std::size_t i,
                    std::size_t j) {
  const int before = i == 0 ? 0 : order[i - 1];
  double gain = HopCost(rtt, before, order[i]) - HopCost(rtt, before, order[j]);
  if (j + 1 < order.size()) {
    gain += HopCost(rtt, order[j], order[j + 1]) - HopCost(rtt, order[i], order[j + 1]);
  }
  return gain;
}

}  // namespace

double HopCost(const RttMatrix& rtt, int a, int b) {
  auto ms = rtt.Between(static_cast<std::size_t>(a), static_cast<std::size_t>(b));
  return ms ? *ms : kUnknownHopMs;
}

double PathCost(const RttMatrix& rtt, const std::vector<int>& order) {
  double cost = 0;
  int last = 0;
  for (int node : order) {
    cost += HopCost(rtt, last, node);
    last = node;
  }
  return cost;
}

std::vector<int> NearestNeighbourOrder(const RttMatrix& rtt) {
  const int n = static_cast<int>(rtt.size());
  std::vector<bool> placed(rtt.size(), false);
  std::vector<int> order;
  int last = 0;
  for (int step = 1; step < n; ++step) {
    int best = -1;
    for (int node = 1; node < n; ++node) {
      if (placed[static_cast<std::size_t>(node)]) continue;
      if (best < 0 || HopCost(rtt, last, node) < HopCost(rtt, last, best)) best = node;
    }
    placed[static_cast<std::size_t>(best)] = true;
    order.push_back(best);
    last = best;
  }
  return order;
}

std::vector<int> ImproveByTwoOpt(const RttMatrix& rtt, std::vector<int> order) {
  bool improved = true;
  while (improved) {
    improved = false;
    for (std::size_t i = 0; i < order.size(); ++i) {
      for (std::size_t j = i + 1; j < order.size(); ++j) {
        if (ReversalGain(rtt, order, i, j) > kMinGainMs) {
          std::reverse(order.begin() + static_cast<std::ptrdiff_t>(i),
                       order.begin() + static_cast<std::ptrdiff_t>(j) + 1);
          improved = true;
        }
      }
    }
  }
  return order;
}

std::vector<int> OrderByRtt(const RttMatrix& rtt) {
  return ImproveByTwoOpt(rtt, NearestNeighbourOrder(rtt));
}

}  // namespace braid
