#include "agent/agent.h"

#include <fcntl.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "agent/copy_retries.h"
#include "agent/fanout_copy.h"
#include "agent/interrupt.h"
#include "agent/report/console.h"
#include "session/descriptor_limit.h"

namespace braid {
namespace {

/// -l FILE, opened for appending (mode 0600 when new); the agent's whole run
/// writes to it, so it stays open until the process ends.
void OpenLog(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  std::FILE* log = fd >= 0 ? ::fdopen(fd, "a") : nullptr;
  if (log == nullptr) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    throw BraidError(ErrorCode::kUsage,
                     "-l: cannot open the log file " + path + ": " + std::strerror(err));
  }
  AlsoLogStderrTo(log);
}

/// -t SEC: SIGALRM after SEC seconds, which main() turns into an interrupt.
void StartTimeLimit(double seconds) {
  itimerval limit{};
  limit.it_value.tv_sec = static_cast<time_t>(seconds);
  limit.it_value.tv_usec =
      static_cast<suseconds_t>((seconds - static_cast<double>(limit.it_value.tv_sec)) * 1e6);
  ::setitimer(ITIMER_REAL, &limit, nullptr);
}

}  // namespace

int RunAgent(const Options& options, ServerLauncher& launcher) {
  // Its local ends inherit it; a copy to many destinations holds sockets for each.
  RaiseDescriptorLimit();
  if (!options.log_file.empty()) {
    try {
      OpenLog(options.log_file);
    } catch (const BraidError& e) {
      PrintLine(stderr, "braid: %s", e.what());
      return ExitCodeFor(e.code());
    }
  }
  if (options.time_limit > 0) StartTimeLimit(options.time_limit);
  InterruptBackstop backstop;
  if (!options.destinations.empty()) return RunFanout(options, launcher);
  return RunCopyWithRetries(options, launcher, nullptr);
}

}  // namespace braid
