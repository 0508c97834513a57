#include "agent/fanout/hop_choice.h"

#include <cstddef>

namespace braid {

int NodeToFollow(const std::vector<int>& parent, int node,
                 const std::function<bool(int)>& finished) {
  int above = parent[static_cast<std::size_t>(node)];
  // Bounded by the depth: parents lead to the source, which has none.
  for (std::size_t hops = 0; above > 0 && hops < parent.size(); ++hops) {
    if (!finished(above)) return above;
    above = parent[static_cast<std::size_t>(above)];
  }
  return 0;
}

}  // namespace braid
