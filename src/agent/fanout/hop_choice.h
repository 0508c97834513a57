#pragma once
/// Which node a hop of a chain or tree takes its data from, as the copies
/// above it live, finish or die (agent/fanout_copy asks before each attempt).
/// Pure: the copies' states are passed in.

#include <functional>
#include <vector>

namespace braid {

/// The node `node` follows: the nearest above it in `parent` (node 0 the
/// source, parent -1) whose copy has not finished (a finished copy, complete
/// or failed, closed its feed), or 0 when every one above has (the sources
/// feed it). `finished` is asked about destinations only (nodes >= 1). The
/// node chosen may not serve its feed yet: the hop logs in meanwhile, and
/// waits for it only before it opens its source (HopSource::AwaitFeed).
int NodeToFollow(const std::vector<int>& parent, int node,
                 const std::function<bool(int)>& finished);

}  // namespace braid
