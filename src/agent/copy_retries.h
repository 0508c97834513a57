#pragma once
/// One destination's copy, with its retries: attempts (agent/copy_attempt)
/// until one succeeds, one fails for good, or an interrupt comes. `braid
/// SRC... DST` is one of these; a copy to many (agent/star_copy) runs one per
/// destination at once, each on its own thread.

#include "braid/options.h"

namespace braid {

class CopyWatch;
class ServerLauncher;

/// The exit status, after the failure (if any) was printed. With `watch`, the
/// attempts report to it, the failure's line is left to its owner, and the
/// outcome is in it when this returns. Throws nothing a BraidError explains.
int RunCopyWithRetries(const Options& options, ServerLauncher& launcher, CopyWatch* watch);

}  // namespace braid
