#include "agent/fanout/hop_choice.h"

#include <cstddef>

namespace braid {

std::optional<int> NodeToFollow(const std::vector<int>& parent, int node,
                                const std::function<HopState(int)>& state) {
  int above = parent[static_cast<std::size_t>(node)];
  // Bounded by the depth: parents lead to the source, which has none.
  for (std::size_t hops = 0; above > 0 && hops < parent.size(); ++hops) {
    const HopState s = state(above);
    if (!s.finished) return s.ready ? std::optional<int>(above) : std::nullopt;
    above = parent[static_cast<std::size_t>(above)];
  }
  return 0;
}

}  // namespace braid
