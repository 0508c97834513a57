#pragma once
/// One child process of the agent with a control socketpair to it: the local
/// `braid --serve` and the system ssh client (-S). Owns the fork and exec, the
/// descriptors the child gets, and the reaping, so a pid is never signalled
/// after it was reaped (when it may name another process).

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "braid/mutex.h"
#include "braid/unique_fd.h"

namespace braid {

struct ChildSpec {
  /// The control socket on the child's stdin and stdout, rather than on a number.
  static constexpr int kControlOnStdio = -1;

  std::string what;               ///< for messages: "a local server", "the ssh command for h"
  std::string path;               ///< executed as it is (no PATH search)
  std::vector<std::string> argv;  ///< argv[0] included
  /// The descriptor number the child finds its end of the socketpair on
  /// (above 2), or kControlOnStdio.
  int control_fd = kControlOnStdio;
  bool pipe_stderr = false;  ///< the child's stderr to a pipe for TakeStderr(); else ours
};

class ChildProcess {
 public:
  /// Forks and execs `spec`. The child ignores SIGINT (Ctrl-C is the agent's,
  /// which tells its ends over the control stream) and has SIGPIPE at its
  /// default; an exec that fails exits 127, as a shell's does. Throws
  /// BraidError(kInternal) "cannot start WHAT: STEP: cause".
  explicit ChildProcess(const ChildSpec& spec);
  /// A child still unreaped is killed (SIGKILL) and reaped: never a zombie.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Our end of the control socketpair (once).
  UniqueFd TakeControl() { return std::move(control_); }
  /// The read end of the child's stderr pipe (once); invalid unless asked for.
  UniqueFd TakeStderr() { return std::move(stderr_); }
  pid_t pid() const { return pid_; }

  /// Sends `sig` unless the child is reaped already. False (errno set) when
  /// kill fails for another reason than the child being gone.
  bool Signal(int sig) BRAID_EXCLUDES(mu_);
  /// Reaps the child if it has ended, without waiting; true once it is reaped.
  bool TryWait() BRAID_EXCLUDES(mu_);
  /// Waits until the child ends and reaps it; returns status().
  std::optional<int> Wait() BRAID_EXCLUDES(mu_);
  bool reaped() BRAID_EXCLUDES(mu_);
  /// The exit code, or 128 + N after signal N; nullopt before the child is
  /// reaped, or when it cannot be waited for (ECHILD: not ours any more).
  std::optional<int> status() BRAID_EXCLUDES(mu_);

 private:
  /// Records the end of the child waitpid returned as `rc` with `wstatus`.
  void RecordLocked(pid_t rc, int wstatus, int error) BRAID_REQUIRES(mu_);

  UniqueFd control_;  ///< moved out by the owner's thread before any other uses this
  UniqueFd stderr_;   ///< as control_
  pid_t pid_ = -1;    ///< set in the constructor, constant after it
  Mutex mu_;          ///< makes "not yet reaped, so signal it" one step
  bool reaped_ BRAID_GUARDED_BY(mu_) = false;
  std::optional<int> status_ BRAID_GUARDED_BY(mu_);
};

}  // namespace braid
