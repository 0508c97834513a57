#pragma once
/// A real `braid --serve --serve-fd 3` child over a socketpair, as the agent
/// starts a local end (src/launch/local_server.cc), for tests that play a
/// malicious agent against it.

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "support/fake_peer.h"

namespace braid::testing {

/// `braid --serve` exits 1 when its session ends without Bye: an Abort, or a
/// control channel that broke or closed (src/server/server.cc). It is the
/// server's own status, not an ExitCodeFor value.
inline constexpr int kServeEndedWithoutBye = 1;

class ServeChild {
 public:
  /// Starts the freshly built braid; its stderr goes to a file under `dir`.
  /// `extra_args` follow `--serve --serve-fd 3` (e.g. --max-entries N).
  explicit ServeChild(const std::string& dir, const std::vector<std::string>& extra_args = {});
  /// Kills it (SIGKILL, by pid) if it is still running.
  ~ServeChild();
  ServeChild(const ServeChild&) = delete;
  ServeChild& operator=(const ServeChild&) = delete;

  FakeControl& control() { return *control_; }
  int control_fd() const { return fd_.get(); }
  pid_t pid() const { return pid_; }
  /// Hello and HelloReply; false if the server did not answer.
  bool Greet();
  /// Closes our end of the control stream, as an agent that went away.
  void CloseControl();
  /// Exit status (or 128 + signal) within `timeout_seconds`, else SIGKILL and -1.
  int Wait(double timeout_seconds);
  bool running();
  std::string err() const;

 private:
  UniqueFd fd_;
  std::unique_ptr<FakeControl> control_;
  pid_t pid_ = -1;
  int status_ = -2;  ///< -2 while running
  std::string err_path_;
};

/// Resident memory of a process in KiB (VmRSS), or -1 if it is gone.
long ResidentKib(pid_t pid);
/// The most resident memory it has had in KiB (VmHWM), or -1 if it is gone.
long PeakResidentKib(pid_t pid);

}  // namespace braid::testing
