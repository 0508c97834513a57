/// braid: parse the command line, then either copy (the agent) or serve one end.

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>

#include "agent/agent.h"
#include "agent/interrupt.h"
#include "agent/version_text.h"
#include "braid/error.h"
#include "cli/command_line.h"
#include "launch/server_launcher.h"
#include "serve/server.h"

namespace {

void OnSignal(int sig) { braid::RequestInterrupt(sig); }

int Serve(int control_fd, braid::ListLimits limits) {
  // A local end is started through /proc/self/exe, which the kernel names
  // "exe"; ps -e, top and pgrep should see braid.
  ::prctl(PR_SET_NAME, "braid", 0, 0, 0);
  // A vanished agent must surface as a write error, not kill us silently.
  ::signal(SIGPIPE, SIG_IGN);
  int in = control_fd >= 0 ? control_fd : STDIN_FILENO;
  int out = control_fd >= 0 ? control_fd : STDOUT_FILENO;
  return braid::RunServerOnFds(in, out, limits);
}

}  // namespace

int main(int argc, char** argv) {
  braid::CommandLine cl;
  try {
    cl = braid::ParseCommandLine(argc, argv);
  } catch (const braid::BraidError& e) {
    std::fprintf(stderr, "braid: %s\n", e.what());
    return braid::ExitCodeFor(e.code());
  }
  switch (cl.mode) {
    case braid::CommandLine::Mode::kExit:
      return cl.exit_code;
    case braid::CommandLine::Mode::kVersion:
      std::fputs(braid::VersionText().c_str(), stdout);
      return 0;
    case braid::CommandLine::Mode::kServe:
      return Serve(cl.serve_fd, cl.options.list_limits);
    case braid::CommandLine::Mode::kCopy:
      break;
  }
  ::signal(SIGPIPE, SIG_IGN);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  // -t: the copy stops at its time limit as it stops at a Ctrl-C, keeping what a re-run needs.
  ::sigaction(SIGALRM, &sa, nullptr);
  braid::ProcessServerLauncher launcher;
  return braid::RunAgent(cl.options, launcher);
}
