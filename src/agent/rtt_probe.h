#pragma once
/// The RTTs a chain or tree is ordered by (docs/architecture.md, "A copy to
/// many destinations"): a server on every node (node 0 where the sources are,
/// then each destination) listens for probes, then connects to every other
/// node's a few times and says how long a connect took (docs/protocol.md,
/// "Probes"). What cannot be measured stays missing, and the planner keeps the
/// order given there; a node that cannot be probed is a line under -v, never
/// the copy's failure (its own copy will say what is wrong with it).

#include "agent/fanout/rtt_matrix.h"
#include "braid/options.h"

namespace braid {

class ServerLauncher;

/// One row and column per node; in milliseconds, each way as measured from its start.
RttMatrix MeasureRtts(const Options& options, ServerLauncher& launcher);

}  // namespace braid
