#pragma once
/// The Partition Cast model (ETH Zurich's, for Dolly-style cloning): the
/// throughput a logical topology can sustain is the minimum over every
/// constraint it posts on the physical network. Each node's link in and out,
/// its disk and its forwarding CPU are shared by the streams through them,
/// and each site link by the streams that cross it, so a star shares the
/// source's uplink N ways where a chain shares nothing.
///
/// Here each destination also gets a rate of its own: the tightest constraint
/// on its path from the source (its bounded buffers pass an ancestor's limit
/// down, but nothing of a sibling's). The copy's rate is the lowest of them.

#include <span>
#include <vector>

#include "agent/fanout/fanout_network.h"

namespace braid {

enum class ConstraintKind {
  kNone,        ///< nothing known bounds it
  kNetIn,       ///< a node's link in
  kNetOut,      ///< a node's link out, shared by its children
  kDiskWrite,   ///< a destination's disk
  kForwardCpu,  ///< a node's CPU, sealing one stream per child
  kSiteLink,    ///< the link from one site to another, shared by the streams crossing it
};

struct Constraint {
  ConstraintKind kind = ConstraintKind::kNone;
  int node = -1;                 ///< the node, for the node constraints
  int from_site = kUnknownSite;  ///< the direction, for kSiteLink
  int to_site = kUnknownSite;
  double capacity = kUnlimited;  ///< bytes/s, before sharing
  int streams = 1;               ///< the logical streams that share it

  double Rate() const { return capacity / streams; }
};

struct LayoutRates {
  std::vector<double> rate;       ///< per node, bytes/s; the source's is kUnlimited
  std::vector<Constraint> bound;  ///< per node: the tightest constraint on its path
  int worst = 0;                  ///< the destination with the lowest rate (0: none)

  double Rate() const { return rate[static_cast<std::size_t>(worst)]; }
  const Constraint& Bound() const { return bound[static_cast<std::size_t>(worst)]; }
};

/// Evaluates the layout in which node v receives from parent[v] (parent[0] is
/// -1: the source; every other node must reach it). A capacity that is
/// negative or not a number counts as unknown.
LayoutRates EvaluateLayout(const FanoutNetwork& network, std::span<const int> parent);

}  // namespace braid
