#pragma once
/// Runs a program to completion for a test: argv in; exit code, stdout and
/// stderr out; a hard timeout so a hung child fails the test instead of the CI job.

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace braid::testing {

struct ProcessResult {
  int exit_code = -1;  ///< exit status, or 128 + signal number; -1 if it never ran
  std::string out;
  std::string err;  ///< the child's stderr, plus a note if the runner killed it
  bool timed_out = false;
};

/// Runs `argv` (looked up in PATH) with this process's environment plus
/// `env_overrides` (an empty value unsets the variable), feeds it `stdin_data`
/// and collects its output without deadlocking on large output. If it runs
/// longer than `timeout_seconds`, its process group is killed (it runs in a
/// group of its own, so its children go too) and that is noted in `err`.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env_overrides = {},
                         const std::string& stdin_data = "", int timeout_seconds = 300);

/// Runs `argv` as RunProcess does, but with a pseudo-terminal as its stdin,
/// stdout and stderr (so it behaves as it would for a user at a terminal):
/// everything it wrote to the terminal is in `out`, `err` only has the
/// runner's own notes. The terminal is `columns` wide and 24 rows high.
ProcessResult RunInTerminal(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env_overrides = {},
                            int timeout_seconds = 300, int columns = 80);

/// RunProcess of the freshly built braid (BRAID_BINARY) with `args`. Unless
/// overridden, HOME is the sshd fixture's home (so braid finds its ssh config,
/// keys and known_hosts) and SSH_AUTH_SOCK is unset (no agent leaks in).
ProcessResult RunBraid(std::vector<std::string> args,
                       const std::map<std::string, std::string>& env_overrides = {},
                       const std::string& stdin_data = "", int timeout_seconds = 300);

/// RunBraid at a pseudo-terminal (RunInTerminal).
ProcessResult RunBraidInTerminal(std::vector<std::string> args,
                                 const std::map<std::string, std::string>& env_overrides = {},
                                 int timeout_seconds = 300, int columns = 80);

/// The processes whose parent is `parent` now (from /proc), so a test can
/// signal exactly a process its own braid started.
std::vector<pid_t> ChildrenOf(pid_t parent);

}  // namespace braid::testing
