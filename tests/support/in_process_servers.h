#pragma once
/// `braid --serve` loops (serve/server.h's RunServer, what `braid --serve
/// --serve-fd N` runs) on threads of the test process, each over one end of a
/// socketpair, behind the agent's ServerLauncher seam. The agent then runs in
/// the test against real servers, real files and real data sockets; only the
/// process boundary is gone, so a test is fast and needs no sshd.
///
/// What the servers share with the test process: SIGPIPE (the launcher ignores
/// it, as main does for both modes; FdByteStream's MSG_NOSIGNAL already keeps
/// a socket write from raising it), the environment (SSH_CONNECTION, read by
/// a server for where it was reached; the agent passes 127.0.0.1 for local
/// ends, so it does not matter here), and a server whose transfer thread does
/// not stop within 15 s after an Abort ends the whole process (std::_Exit).

#include <array>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "braid/mutex.h"
#include "launch/server_launcher.h"

namespace braid::testing {

/// Makes the first ErrorMessage of each end reach the agent in a chosen
/// order: each is held until the other end has one too, then `first`'s goes
/// out, and the other's only once the agent has read it. Both ends failing
/// on their own is real; only the race between their reports is decided.
class ErrorOrder {
 public:
  /// How long an end's error waits for the other's: below a server's 15 s
  /// stop grace, so a held worker thread never ends the test process.
  static constexpr std::chrono::seconds kHoldLimit{8};

  explicit ErrorOrder(Side first) : first_(first) {}
  /// Called by `side`'s server just before its ErrorMessage is written;
  /// returns once it may be.
  void BeforeError(Side side);
  /// Called once it is written and read by the agent.
  void AfterError(Side side);
  /// True when both ends sent an error and `first`'s reached the agent first.
  bool Kept();
  /// What each end did, for a failure message.
  std::string Describe();

 private:
  const Side first_;
  Mutex mu_;
  std::condition_variable cv_;  ///< signals produced_ or sent_
  std::array<bool, 2> produced_ BRAID_GUARDED_BY(mu_){};
  std::array<bool, 2> sent_ BRAID_GUARDED_BY(mu_){};
  bool gave_up_ BRAID_GUARDED_BY(mu_) = false;
};

class InProcessLauncher : public ServerLauncher {
 public:
  InProcessLauncher();
  ~InProcessLauncher() override;

  /// A RunServer thread over a socketpair; the channel answers LocalAddress
  /// with SetLocalAddress's address (127.0.0.1 unless set). The endpoint's
  /// host only names the end: every server runs here.
  LaunchedServer Launch(Side side, const Endpoint& endpoint, const Options& options,
                        StderrSink on_stderr) override;

  void SetLocalAddress(Side side, std::string address);
  /// Orders the ends' first errors from now on (see ErrorOrder).
  void OrderErrors(Side first);
  ErrorOrder* error_order() { return order_.get(); }
  /// How many servers were started.
  int launched() const { return launched_; }

 private:
  // The test's thread only: Launch runs on the agent's thread, which is the test's.
  std::array<std::string, 2> local_address_{"127.0.0.1", "127.0.0.1"};
  std::unique_ptr<ErrorOrder> order_;  ///< thread-safe; outlives every channel
  int launched_ = 0;
};

/// Copies `args` as `braid ARGS` in this process, with `launcher` (the real
/// command-line parser, then RunAgent). Captures what the agent printed.
struct AgentRun {
  int exit_code = -1;
  std::string out;  ///< stdout (--json, digest lines)
  std::string err;  ///< stderr (errors, -v, resume and kept lines)
};
AgentRun RunAgentInProcess(const std::vector<std::string>& args, ServerLauncher& launcher);

}  // namespace braid::testing
