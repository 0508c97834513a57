#pragma once
/// A copy to many destinations (--to, --to-file), laid out as --topology says:
/// a star (the source sends to every destination), a chain (the source to the
/// first, each destination to the next) or a tree (each node to at most K).
/// Each destination's copy is a whole copy of its own (agent/copy_retries,
/// exactly as `braid SRC... DST` runs one) on a thread of its own, with its
/// own ssh sessions, servers, secret, data streams, controller and retries.
/// In a chain or tree a destination's copy takes its data not from the
/// sources but from the destination above it: a source server there reads
/// what that destination's sink writes, block by block as it arrives, through
/// the sink's feed (docs/protocol.md, "Forwarding"). When a destination stops,
/// the copies below it follow the nearest live node above it instead, and
/// resume. The copies show as one: a progress line over all, one line per
/// destination that failed, one exit status.

#include "braid/options.h"

namespace braid {

class ServerLauncher;

/// Copies `options.sources` to every one of `options.destinations` (non-empty);
/// prints the failures and returns the exit status (docs/errors.md: 19 when
/// some destinations failed and the rest are complete).
int RunFanout(const Options& options, ServerLauncher& launcher);

}  // namespace braid
