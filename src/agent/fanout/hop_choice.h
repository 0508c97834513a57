#pragma once
/// Which node a hop of a chain or tree takes its data from, as the copies
/// above it live, finish or die (agent/fanout_copy asks before each attempt).
/// Pure: the copies' states are passed in.

#include <functional>
#include <optional>
#include <vector>

namespace braid {

/// One destination's copy as a hop below it sees it.
struct HopState {
  bool finished = false;  ///< its copy ended, complete or failed: its feed is gone
  bool ready = false;     ///< its latest attempt's sink answered: its feed is up
};

/// The node `node` follows: the nearest above it in `parent` (node 0 the
/// source, parent -1) whose copy has not finished, or 0 when every one above
/// has (the sources feed it). nullopt while that node is not ready yet: ask
/// again shortly. `state` is asked about destinations only (nodes >= 1).
std::optional<int> NodeToFollow(const std::vector<int>& parent, int node,
                                const std::function<HopState(int)>& state);

}  // namespace braid
