#include "launch/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "braid/error.h"

namespace braid {
namespace {

/// The child's side of the fork: only async-signal-safe calls until exec (the
/// parent has other threads, and one of them may hold malloc's lock). The
/// descriptors are first lifted above every number they are copied to, so no
/// dup2 can overwrite another's source; the lifted copies close on exec.
[[noreturn]] void ExecChild(const ChildSpec& spec, int io, int err, char* const* argv) {
  const int lowest = std::max(3, spec.control_fd + 1);
  const int io_high = ::fcntl(io, F_DUPFD_CLOEXEC, lowest);
  const int err_high = err >= 0 ? ::fcntl(err, F_DUPFD_CLOEXEC, lowest) : -1;
  bool ok = io_high >= 0 && (err < 0 || err_high >= 0);
  if (ok && spec.control_fd == ChildSpec::kControlOnStdio) {
    ok = ::dup2(io_high, STDIN_FILENO) >= 0 && ::dup2(io_high, STDOUT_FILENO) >= 0;
  } else if (ok) {
    ok = ::dup2(io_high, spec.control_fd) >= 0;  // dup2 clears FD_CLOEXEC on the copy
  }
  if (ok && err_high >= 0) ok = ::dup2(err_high, STDERR_FILENO) >= 0;
  if (!ok) ::_exit(127);
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGPIPE, SIG_DFL);
  ::execv(spec.path.c_str(), argv);
  ::_exit(127);
}

}  // namespace

ChildProcess::ChildProcess(const ChildSpec& spec) {
  // Built before the fork: the child may not allocate.
  std::vector<char*> argv;
  for (const std::string& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  auto fail = [&spec](const char* step) {
    const int error = errno;
    return BraidError(ErrorCode::kInternal,
                      "cannot start " + spec.what + ": " + step + ": " + std::strerror(error));
  };
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw fail("socketpair");
  UniqueFd parent(sv[0]);
  UniqueFd child(sv[1]);
  UniqueFd err_read;
  UniqueFd err_write;
  if (spec.pipe_stderr) {
    int ep[2];
    if (::pipe2(ep, O_CLOEXEC) != 0) throw fail("pipe");
    err_read.Reset(ep[0]);
    err_write.Reset(ep[1]);
  }
  pid_ = ::fork();
  if (pid_ < 0) throw fail("fork");
  if (pid_ == 0) ExecChild(spec, child.get(), err_write.get(), argv.data());
  control_ = std::move(parent);
  stderr_ = std::move(err_read);
}

ChildProcess::~ChildProcess() {
  if (reaped()) return;
  Signal(SIGKILL);
  Wait();
}

bool ChildProcess::Signal(int sig) {
  MutexLock lock(mu_);
  if (reaped_) return true;
  return ::kill(pid_, sig) == 0 || errno == ESRCH;
}

bool ChildProcess::TryWait() {
  MutexLock lock(mu_);
  if (reaped_) return true;
  int wstatus = 0;
  const pid_t rc = ::waitpid(pid_, &wstatus, WNOHANG);
  RecordLocked(rc, wstatus, errno);
  return reaped_;
}

std::optional<int> ChildProcess::Wait() {
  // Waits without reaping, and reaps under the lock: so Signal() never sends to
  // a pid reaped a moment before, which another process may have by then.
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT) != 0 &&
         errno == EINTR) {
  }
  MutexLock lock(mu_);
  while (!reaped_) {
    int wstatus = 0;
    const pid_t rc = ::waitpid(pid_, &wstatus, 0);
    RecordLocked(rc, wstatus, errno);
  }
  return status_;
}

bool ChildProcess::reaped() {
  MutexLock lock(mu_);
  return reaped_;
}

std::optional<int> ChildProcess::status() {
  MutexLock lock(mu_);
  return status_;
}

void ChildProcess::RecordLocked(pid_t rc, int wstatus, int error) {
  if (rc == pid_) {
    reaped_ = true;
    status_ = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  } else if (rc < 0 && error != EINTR) {
    reaped_ = true;  // ECHILD: not ours to wait for any more
  }
}

}  // namespace braid
