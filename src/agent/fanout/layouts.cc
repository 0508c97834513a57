#include "agent/fanout/layouts.h"

#include <algorithm>

namespace braid {
namespace {

std::size_t At(int node) { return static_cast<std::size_t>(node); }

/// Hangs order[begin, end) under `root` in `fanout` runs, recursively.
void HangRuns(const std::vector<int>& order, std::size_t begin, std::size_t end, int root,
              std::size_t fanout, std::vector<int>& parent) {
  const std::size_t count = end - begin;
  const std::size_t runs = std::min(fanout, count);
  std::size_t at = begin;
  for (std::size_t run = 0; run < runs; ++run) {
    // The first count % runs runs take one more, so the sizes differ by one at most.
    const std::size_t size = count / runs + (run < count % runs ? 1 : 0);
    const int child = order[at];
    parent[At(child)] = root;
    HangRuns(order, at + 1, at + size, child, fanout, parent);
    at += size;
  }
}

}  // namespace

std::vector<int> ChainParents(std::size_t nodes, const std::vector<int>& order) {
  std::vector<int> parent(nodes, -1);
  int last = 0;
  for (int node : order) {
    parent[At(node)] = last;
    last = node;
  }
  return parent;
}

std::vector<int> TreeParents(std::size_t nodes, const std::vector<int>& order, int fanout) {
  std::vector<int> parent(nodes, -1);
  HangRuns(order, 0, order.size(), 0, static_cast<std::size_t>(std::max(fanout, 1)), parent);
  return parent;
}

std::vector<int> StarParents(std::size_t nodes) {
  std::vector<int> parent(nodes, 0);
  if (nodes > 0) parent[0] = -1;
  return parent;
}

int Depth(const std::vector<int>& parent) {
  int deepest = 0;
  for (std::size_t v = 0; v < parent.size(); ++v) {
    int hops = 0;
    for (int at = static_cast<int>(v); parent[At(at)] >= 0; at = parent[At(at)]) ++hops;
    deepest = std::max(deepest, hops);
  }
  return deepest;
}

}  // namespace braid
