#pragma once
/// The freshly built braid running in the background, for tests that break a
/// copy while it runs: its pid to signal, and its exit code and stderr after.

#include <sys/types.h>

#include <string>
#include <vector>

#include "support/test_files.h"  // FileSize, which its users poll

namespace braid::testing {

class BackgroundBraid {
 public:
  /// Starts braid with `args`, HOME set to the sshd fixture's home, stdout and
  /// stderr into files under `dir`.
  BackgroundBraid(const std::vector<std::string>& args, const std::string& dir);
  /// Kills it (SIGKILL, by pid) if it is still running.
  ~BackgroundBraid();
  BackgroundBraid(const BackgroundBraid&) = delete;
  BackgroundBraid& operator=(const BackgroundBraid&) = delete;

  pid_t pid() const { return pid_; }
  void Signal(int sig) const;
  /// Waits (at most `timeout_seconds`, then SIGKILL) and returns the exit
  /// status, or 128 + signal.
  int Wait(int timeout_seconds = 120);
  /// What it wrote to stderr so far.
  std::string err() const;
  std::string out() const;

 private:
  pid_t pid_ = -1;
  std::string out_path_;
  std::string err_path_;
  int status_ = -1;
};

/// Polls `predicate` every 20 ms for up to `timeout_seconds`; true once it holds.
template <typename Predicate>
bool WaitFor(Predicate predicate, double timeout_seconds);

}  // namespace braid::testing

#include "support/background_braid_inl.h"
