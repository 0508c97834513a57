#pragma once
/// The RTTs a chain or tree is ordered by (docs/architecture.md, "A copy to
/// many destinations"): a server on every node (node 0 where the sources are,
/// then each destination) listens for probes, then connects to every other
/// node's a few times and says how long a connect took (docs/protocol.md,
/// "Probes"). What cannot be measured stays missing, and the planner keeps the
/// order given there; a node that cannot be probed is a line under -v, never
/// the copy's failure (its own copy will say what is wrong with it).

#include <memory>
#include <vector>

#include "agent/fanout/rtt_matrix.h"
#include "agent/server_end.h"
#include "braid/options.h"

namespace braid {

class ServerLauncher;

/// One row and column per node; in milliseconds, each way as measured from its start.
/// With `kept`, each destination's server that answered its probes is kept
/// there (index i for destination i, null for one that did not), for the
/// copy to it to open as its sink: the probes then cost no login of their own.
RttMatrix MeasureRtts(const Options& options, ServerLauncher& launcher,
                      std::vector<std::unique_ptr<StartedServer>>* kept = nullptr);

}  // namespace braid
