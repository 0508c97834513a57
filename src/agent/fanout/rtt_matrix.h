#pragma once
/// Round-trip times measured between the nodes of a copy to many destinations
/// (node 0 the source, then the destinations), and the sites they imply.

#include <cstddef>
#include <optional>
#include <vector>

namespace braid {

/// A node whose site nobody knows: no site link constrains its streams.
constexpr int kUnknownSite = -1;

class RttMatrix {
 public:
  explicit RttMatrix(std::size_t nodes = 0);

  std::size_t size() const { return nodes_; }

  /// Records a measured RTT from `from` to `to` in milliseconds. A value that
  /// is not a finite, non-negative time (a peer's report is not trusted) is
  /// dropped, so that pair stays unknown. Indices must be below size().
  void Set(std::size_t from, std::size_t to, double ms);
  /// Set both ways.
  void SetBoth(std::size_t a, std::size_t b, double ms);

  /// What was measured from `from` to `to`, if anything.
  std::optional<double> Measured(std::size_t from, std::size_t to) const;
  /// The RTT between `a` and `b` either way: the mean when both directions
  /// were measured (a round trip is symmetric; two probes just disagree).
  std::optional<double> Between(std::size_t a, std::size_t b) const;

 private:
  std::size_t nodes_;
  std::vector<double> ms_;  ///< row-major; NaN where nothing was measured
};

/// The RTT under which two nodes count as one site (one switch, one room):
/// far above a LAN's fraction of a millisecond, below any wide-area path.
constexpr double kDefaultSiteRttMs = 2.0;

/// `rtt` with every measured time rounded up to a whole number of `step_ms`
/// (at least one step), so that differences within a site, which are noise,
/// tie: the chain's order then keeps the order given there, and only the
/// wide area decides.
RttMatrix Coarsened(const RttMatrix& rtt, double step_ms = kDefaultSiteRttMs);

/// Groups the nodes into sites: two nodes whose RTT is known and at most
/// `site_rtt_ms` are at one site, and so is every node linked to them by such
/// pairs (single linkage). Sites are numbered from 0 in the order their first
/// node appears, so the source's site is 0. A node with no close pair is a
/// site of its own.
std::vector<int> InferSites(const RttMatrix& rtt, double site_rtt_ms = kDefaultSiteRttMs);

}  // namespace braid
