#include "agent/fanout/partition_cast.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

namespace braid {
namespace {

using SitePair = std::pair<int, int>;

/// A capacity from a report is not trusted: one that is no rate is unknown.
double Usable(double capacity) {
  return std::isnan(capacity) || capacity < 0 ? kUnlimited : capacity;
}

std::size_t At(int node) { return static_cast<std::size_t>(node); }

/// The site pair the hop from `from` to `to` crosses, if both sites are known and differ.
std::optional<SitePair> Crossing(const FanoutNetwork& network, int from, int to) {
  int a = network.nodes[At(from)].site;
  int b = network.nodes[At(to)].site;
  if (a == kUnknownSite || b == kUnknownSite || a == b) return std::nullopt;
  return SitePair{a, b};
}

/// The listed capacity between two sites (in either order, the least if
/// listed twice), each direction; kUnlimited if not listed.
double LinkCapacity(const FanoutNetwork& network, SitePair sites) {
  double capacity = kUnlimited;
  for (const SiteLink& link : network.links) {
    if ((link.site_a == sites.first && link.site_b == sites.second) ||
        (link.site_a == sites.second && link.site_b == sites.first)) {
      capacity = std::min(capacity, Usable(link.capacity));
    }
  }
  return capacity;
}

/// How many logical streams share each node's sending side and each direction of a site link.
struct Shares {
  std::vector<std::vector<int>> children;
  std::map<SitePair, int> crossing;
};

/// The children of every node, checked to form a tree under the source: a
/// layout the planner built wrongly is a bug, not an input to survive.
Shares CountShares(const FanoutNetwork& network, std::span<const int> parent) {
  const std::size_t n = network.nodes.size();
  if (parent.size() != n || n == 0 || parent[0] != -1) std::abort();
  Shares shares{std::vector<std::vector<int>>(n), {}};
  for (std::size_t v = 1; v < n; ++v) {
    int p = parent[v];
    if (p < 0 || At(p) >= n || At(p) == v) std::abort();
    shares.children[At(p)].push_back(static_cast<int>(v));
    if (auto sites = Crossing(network, p, static_cast<int>(v))) ++shares.crossing[*sites];
  }
  return shares;
}

void Tighten(Constraint& tightest, const Constraint& candidate) {
  if (candidate.Rate() < tightest.Rate()) tightest = candidate;
}

/// The tightest constraint on the path to `child`: what bounds its parent,
/// then what the hop from the parent and the child itself add.
Constraint TightestOnHop(const FanoutNetwork& network, const Shares& shares,
                         const Constraint& above, int p, int child) {
  const NodeCapacity& from = network.nodes[At(p)].capacity;
  const NodeCapacity& to = network.nodes[At(child)].capacity;
  const int fan_out = static_cast<int>(shares.children[At(p)].size());
  Constraint tightest = above;
  Tighten(tightest,
          {ConstraintKind::kNetOut, p, kUnknownSite, kUnknownSite, Usable(from.net_out), fan_out});
  Tighten(tightest, {ConstraintKind::kForwardCpu, p, kUnknownSite, kUnknownSite,
                     Usable(from.forward_cpu), fan_out});
  if (auto sites = Crossing(network, p, child)) {
    Tighten(tightest, {ConstraintKind::kSiteLink, -1, sites->first, sites->second,
                       LinkCapacity(network, *sites), shares.crossing.at(*sites)});
  }
  Tighten(tightest,
          {ConstraintKind::kNetIn, child, kUnknownSite, kUnknownSite, Usable(to.net_in), 1});
  Tighten(tightest, {ConstraintKind::kDiskWrite, child, kUnknownSite, kUnknownSite,
                     Usable(to.disk_write), 1});
  return tightest;
}

}  // namespace

LayoutRates EvaluateLayout(const FanoutNetwork& network, std::span<const int> parent) {
  const Shares shares = CountShares(network, parent);
  const std::size_t n = network.nodes.size();
  LayoutRates rates{std::vector<double>(n, kUnlimited), std::vector<Constraint>(n), 0};
  // Top down, so a parent's bound is known before its children's.
  std::vector<int> pending = {0};
  std::size_t reached = 1;
  while (!pending.empty()) {
    int p = pending.back();
    pending.pop_back();
    for (int child : shares.children[At(p)]) {
      rates.bound[At(child)] = TightestOnHop(network, shares, rates.bound[At(p)], p, child);
      rates.rate[At(child)] = rates.bound[At(child)].Rate();
      pending.push_back(child);
      ++reached;
    }
  }
  if (reached != n) std::abort();  // a cycle: some node never hears from the source
  for (std::size_t v = 1; v < n; ++v) {
    if (rates.worst == 0 || rates.rate[v] < rates.Rate()) rates.worst = static_cast<int>(v);
  }
  return rates;
}

}  // namespace braid
