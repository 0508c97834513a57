#pragma once
/// A copy to many destinations (--to, --to-file) laid out as a star: the
/// agent runs one whole copy per destination at once, each with its own ssh
/// session(s), servers, secret, data streams and retries (agent/copy_retries,
/// exactly as `braid SRC... DST` runs one), on a thread of its own, and
/// shows them as one: a progress line over all, one line per destination that
/// failed, and one exit status. Each copy's source server reads the sources
/// itself, so N destinations share the source host's uplink N ways; the
/// store-and-forward chain (issue 16) is what avoids that, and will reuse the
/// per-destination watch and outcome here.

#include "braid/options.h"

namespace braid {

class ServerLauncher;

/// Copies `options.sources` to every one of `options.destinations` (non-empty);
/// prints the failures and returns the exit status (docs/errors.md: 16 when
/// some destinations failed and the rest are complete).
int RunStar(const Options& options, ServerLauncher& launcher);

}  // namespace braid
