#pragma once
/// One destination's copy, with its retries: attempts (agent/copy_attempt)
/// until one succeeds, one fails for good, or an interrupt comes. `braid
/// SRC... DST` is one of these; a copy to many (agent/star_copy) runs one per
/// destination at once, each on its own thread.

#include <memory>

#include "agent/server_end.h"
#include "braid/error.h"
#include "braid/options.h"

namespace braid {

class CopyWatch;
class ServerLauncher;

/// A hop of a chain or tree (agent/fanout_copy): which node each attempt
/// takes its data from, as the nodes above it live or die.
class HopSource {
 public:
  virtual ~HopSource() = default;
  /// Before each attempt: points `options` at the node to follow (or at the sources).
  virtual void Choose(Options& options) = 0;
  /// Once the attempt has logged in to both ends: waits until the node chosen
  /// serves its feed. False if it stopped first, or an interrupt came.
  virtual bool AwaitFeed() = 0;
  /// After an attempt failed with `error`, reported by its source's end when
  /// `from_source`: the node it followed stopped, so the next attempt
  /// follows another, and this one spent no retry.
  virtual bool Moved(const BraidError& error, bool from_source) = 0;
  /// While an attempt runs: the node it follows failed or began again, so
  /// whatever the attempt waits for from it will not come. Cheap; asked every tick.
  virtual bool Stopped() const = 0;
};

/// The exit status, after the failure (if any) was printed. With `watch`, the
/// attempts report to it, the failure's line is left to its owner, and the
/// outcome is in it when this returns. With `hop`, each attempt takes its data
/// where that says. Throws nothing a BraidError explains.
/// `started_sink`, if any, is the first attempt's sink, already started.
int RunCopyWithRetries(const Options& options, ServerLauncher& launcher, CopyWatch* watch,
                       HopSource* hop = nullptr,
                       std::unique_ptr<StartedServer> started_sink = nullptr);

}  // namespace braid
