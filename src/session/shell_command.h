#pragma once
/// -N/--pipes: a program at one end of a copy, run as `sh -c COMMAND`. The
/// source reads what it writes to its stdout; the sink writes the data to its
/// stdin. Owns the child: one not waited for is killed and reaped, never left
/// a zombie or running after the copy.

#include <sys/types.h>

#include <optional>
#include <string>

#include "braid/error.h"
#include "braid/mutex.h"
#include "braid/unique_fd.h"

namespace braid {

class ShellCommand {
 public:
  /// Which of the child's standard streams is ours: its stdout to read (its
  /// stdin is /dev/null), or its stdin to write (its stdout is our stderr,
  /// so it never mixes with a server's control channel on stdout).
  enum class Direction { kReadItsOutput, kWriteItsInput };

  /// Starts `/bin/sh -c command`. Throws BraidError(`failure_code`) "cannot
  /// start HOST: the command 'COMMAND': cause".
  ShellCommand(const std::string& command, Direction direction, const std::string& host,
               ErrorCode failure_code);
  /// Kills (SIGKILL) the process group of a child not yet waited for, and reaps it.
  ~ShellCommand();
  ShellCommand(const ShellCommand&) = delete;
  ShellCommand& operator=(const ShellCommand&) = delete;

  /// Our end of the pipe (once).
  UniqueFd TakePipe() { return std::move(pipe_); }
  /// Kills the child's process group, if it is still ours: a transfer that
  /// ends this way never waits on a command that does not read (or write).
  /// From any thread.
  void Kill();
  /// Waits for the child to end; throws BraidError(`failure_code`) naming the
  /// host, the command and its exit status (or signal) unless it exited 0 (or,
  /// reading its output, was ended by SIGPIPE: we stopped reading, at --size).
  void Finish();

 private:
  /// Waits for the child and reaps it: its wait status, or nullopt when it
  /// was reaped already (or is not ours to wait for).
  std::optional<int> Reap();
  /// "HOST: the command 'COMMAND'" ("the command ..." on the local host).
  std::string Named() const {
    return (host_.empty() ? "" : host_ + ": ") + "the command '" + command_ + "'";
  }

  const std::string command_;
  const std::string host_;
  const ErrorCode failure_code_;
  const Direction direction_;
  /// The child, until it is reaped (-1 after): reaped only under `mutex_`,
  /// so Kill never signals a pid that may name another process by then.
  Mutex mutex_;
  pid_t pid_ BRAID_GUARDED_BY(mutex_) = -1;
  UniqueFd pipe_;
};

}  // namespace braid
