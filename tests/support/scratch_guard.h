#pragma once
/// Proves a hostile peer wrote nothing outside the target: snapshots every
/// path under a scratch root (without following links) and a sentinel
/// directory `outside/` beside the target that hostile names aim at; later
/// reports anything new, gone or changed anywhere except under the target.

#include <map>
#include <string>

namespace braid::testing {

class ScratchGuard {
 public:
  /// Creates `root`/outside (with one file) and `root`/target, then snapshots `root`.
  explicit ScratchGuard(const std::string& root);
  const std::string& root() const { return root_; }
  /// The sentinel directory hostile names point at.
  std::string outside() const { return root_ + "/outside"; }
  std::string target() const { return root_ + "/target"; }
  /// Takes the snapshot again (after a test set up more files).
  void Rearm();
  /// "" when nothing outside target/ changed; else one line per change.
  /// Paths under `also_allowed` (relative to root, e.g. a log dir) are ignored too.
  std::string Changes(const std::string& also_allowed = "logs") const;

 private:
  std::map<std::string, std::string> Snapshot() const;
  std::string root_;
  std::map<std::string, std::string> before_;
};

}  // namespace braid::testing
