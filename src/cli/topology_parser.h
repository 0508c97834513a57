#pragma once
/// The value of --topology (issue 16, a copy to many destinations). Not an
/// option yet: the command line takes it once the copy to many destinations exists.

#include <string_view>

#include "braid/topology.h"

namespace braid {

/// Parses "chain", "star", "auto" or "tree:K" (K a plain decimal number,
/// kMinTreeFanout..kMaxTreeFanout), names in any letter case. Throws
/// BraidError(kUsage) with a one-line message quoting `text` otherwise.
Topology ParseTopology(std::string_view text);

}  // namespace braid
