#include "support/process_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>

#include "support/sshd_fixture.h"

extern char** environ;

namespace braid::testing {
namespace {

/// Writing to a child that already exited must be an EPIPE, not our death.
void IgnoreSigpipeOnce() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

std::vector<std::string> BuildEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    if (overrides.count(name) == 0) {
      env.push_back(std::move(entry));
    }
  }
  for (const auto& [name, value] : overrides) {
    if (!value.empty()) {
      env.push_back(name);
      env.back() += "=" + value;
    }
  }
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (std::string& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

void CloseFd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
  }
  fd = -1;
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

/// In a forked child: a process group of its own, default signals, exec.
[[noreturn]] void ExecChild(std::vector<char*>& args, std::vector<char*>& env) {
  // Only async-signal-safe calls from here to exec.
  ::signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execvpe(args[0], args.data(), env.data());
  const char msg[] = "RunProcess: exec failed\n";
  [[maybe_unused]] ssize_t n = ::write(2, msg, sizeof(msg) - 1);
  ::_exit(127);
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env_overrides,
                         const std::string& stdin_data, int timeout_seconds) {
  ProcessResult result;
  if (argv.empty()) {
    result.err = "RunProcess: empty argv";
    return result;
  }
  IgnoreSigpipeOnce();
  std::vector<std::string> args = argv;
  std::vector<std::string> env = BuildEnvironment(env_overrides);
  std::vector<char*> c_args = CStrings(args);
  std::vector<char*> c_env = CStrings(env);

  int in[2];
  int out[2];
  int err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
    result.err = std::string("RunProcess: pipe: ") + std::strerror(errno);
    return result;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.err = std::string("RunProcess: fork: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    ExecChild(c_args, c_env);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  int in_fd = in[1];
  int out_fd = out[0];
  int err_fd = err[0];
  ::fcntl(in_fd, F_SETFL, O_NONBLOCK);
  std::size_t written = 0;
  if (stdin_data.empty()) {
    CloseFd(in_fd);
  }

  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  Clock::time_point give_up = Clock::time_point::max();
  char buf[65536];
  while (out_fd >= 0 || err_fd >= 0) {
    const Clock::time_point now = Clock::now();
    if (!result.timed_out && now >= deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      result.err += "\n[RunProcess: killed pid " + std::to_string(pid) + " after " +
                    std::to_string(timeout_seconds) + " s timeout]\n";
      give_up = now + std::chrono::seconds(5);  // a grandchild may still hold the pipes
    }
    if (now >= give_up) {
      break;
    }
    pollfd fds[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {in_fd, POLLOUT, 0}};
    if (::poll(fds, 3, 100) < 0 && errno != EINTR) {
      break;
    }
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? out_fd : err_fd;
      if (fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
        continue;
      }
      const ssize_t n = ::read(fd, buf, sizeof(buf));
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        CloseFd(fd);
      }
    }
    if (in_fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
      const ssize_t n = ::write(in_fd, stdin_data.data() + written, stdin_data.size() - written);
      if (n > 0) {
        written += static_cast<std::size_t>(n);
      }
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == stdin_data.size()) {
        CloseFd(in_fd);
      }
    }
  }
  CloseFd(in_fd);
  CloseFd(out_fd);
  CloseFd(err_fd);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = ExitCodeOf(status);
  return result;
}

ProcessResult RunInTerminal(const std::vector<std::string>& argv,
                            const std::map<std::string, std::string>& env_overrides,
                            int timeout_seconds, int columns) {
  ProcessResult result;
  std::vector<std::string> args = argv;
  std::vector<std::string> env = BuildEnvironment(env_overrides);
  std::vector<char*> c_args = CStrings(args);
  std::vector<char*> c_env = CStrings(env);
  int master = -1;
  winsize size{};
  size.ws_row = 24;
  size.ws_col = static_cast<unsigned short>(columns);
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
  if (pid < 0) {
    result.err = std::string("RunInTerminal: forkpty: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) ExecChild(c_args, c_env);  // forkpty made it a session leader
  using Clock = std::chrono::steady_clock;
  const Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout_seconds);
  char buf[65536];
  for (;;) {
    if (Clock::now() >= deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      result.err += "[RunInTerminal: killed pid " + std::to_string(pid) + " after timeout]\n";
      break;
    }
    pollfd fd{master, POLLIN, 0};
    if (::poll(&fd, 1, 100) < 0 && errno != EINTR) break;
    if ((fd.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    const ssize_t n = ::read(master, buf, sizeof(buf));
    if (n > 0) {
      result.out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;  // EIO: every holder of the terminal's other side has gone
    }
  }
  ::close(master);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = ExitCodeOf(status);
  return result;
}

namespace {

/// braid's argv and environment for a test: the freshly built binary, the
/// sshd fixture's HOME and no ssh agent unless the test says otherwise.
std::map<std::string, std::string> PrepareBraid(std::vector<std::string>& args,
                                                std::map<std::string, std::string> env) {
#ifdef BRAID_BINARY
  args.insert(args.begin(), BRAID_BINARY);
#else
  args.insert(args.begin(), "braid");
#endif
  if (env.count("HOME") == 0) env["HOME"] = SshdFixture::Get().home();
  if (env.count("SSH_AUTH_SOCK") == 0) env["SSH_AUTH_SOCK"] = "";
  return env;
}

}  // namespace

ProcessResult RunBraid(std::vector<std::string> args,
                       const std::map<std::string, std::string>& env_overrides,
                       const std::string& stdin_data, int timeout_seconds) {
  const std::map<std::string, std::string> env = PrepareBraid(args, env_overrides);
  return RunProcess(args, env, stdin_data, timeout_seconds);
}

ProcessResult RunBraidInTerminal(std::vector<std::string> args,
                                 const std::map<std::string, std::string>& env_overrides,
                                 int timeout_seconds, int columns) {
  const std::map<std::string, std::string> env = PrepareBraid(args, env_overrides);
  return RunInTerminal(args, env, timeout_seconds, columns);
}

std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The command name may hold spaces and parentheses: the fields follow the last ')'.
    std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    pid_t ppid = 0;
    if (rest >> state >> ppid && ppid == parent) {
      children.push_back(static_cast<pid_t>(std::stoi(name)));
    }
  }
  return children;
}

}  // namespace braid::testing
