#include "agent/fanout/rtt_matrix.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace braid {

RttMatrix::RttMatrix(std::size_t nodes)
    : nodes_(nodes), ms_(nodes * nodes, std::numeric_limits<double>::quiet_NaN()) {}

void RttMatrix::Set(std::size_t from, std::size_t to, double ms) {
  if (!std::isfinite(ms) || ms < 0) return;
  ms_.at(from * nodes_ + to) = ms;
}

void RttMatrix::SetBoth(std::size_t a, std::size_t b, double ms) {
  Set(a, b, ms);
  Set(b, a, ms);
}

std::optional<double> RttMatrix::Measured(std::size_t from, std::size_t to) const {
  double ms = ms_.at(from * nodes_ + to);
  if (std::isnan(ms)) return std::nullopt;
  return ms;
}

std::optional<double> RttMatrix::Between(std::size_t a, std::size_t b) const {
  std::optional<double> there = Measured(a, b);
  std::optional<double> back = Measured(b, a);
  if (there && back) return (*there + *back) / 2;
  return there ? there : back;
}

RttMatrix Coarsened(const RttMatrix& rtt, double step_ms) {
  RttMatrix out(rtt.size());
  for (std::size_t from = 0; from < rtt.size(); ++from) {
    for (std::size_t to = 0; to < rtt.size(); ++to) {
      const std::optional<double> ms = rtt.Measured(from, to);
      if (ms) out.Set(from, to, std::max(1.0, std::ceil(*ms / step_ms)) * step_ms);
    }
  }
  return out;
}

std::vector<int> InferSites(const RttMatrix& rtt, double site_rtt_ms) {
  const std::size_t n = rtt.size();
  std::vector<int> site(n, kUnknownSite);
  int next = 0;
  for (std::size_t first = 0; first < n; ++first) {
    if (site[first] != kUnknownSite) continue;
    // Flood from `first` over close pairs: every node reached joins its site.
    std::vector<std::size_t> pending = {first};
    site[first] = next;
    while (!pending.empty()) {
      std::size_t at = pending.back();
      pending.pop_back();
      for (std::size_t other = 0; other < n; ++other) {
        std::optional<double> ms = rtt.Between(at, other);
        if (site[other] == kUnknownSite && ms && *ms <= site_rtt_ms) {
          site[other] = next;
          pending.push_back(other);
        }
      }
    }
    ++next;
  }
  return site;
}

}  // namespace braid
