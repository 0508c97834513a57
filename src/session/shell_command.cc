#include "session/shell_command.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace braid {
namespace {

/// Spawn attributes: SIGPIPE at its default (braid ignores it, and a
/// program writing into a pipe we closed should end as it would in a shell),
/// no signal blocked, and a process group of its own, so that what the
/// command starts ends with it.
class SpawnAttributes {
 public:
  SpawnAttributes() {
    ::posix_spawnattr_init(&attr_);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    ::posix_spawnattr_setsigdefault(&attr_, &defaults);
    sigset_t none;
    sigemptyset(&none);
    ::posix_spawnattr_setsigmask(&attr_, &none);
    ::posix_spawnattr_setpgroup(&attr_, 0);
    ::posix_spawnattr_setflags(
        &attr_, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
  }
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&attr_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  const posix_spawnattr_t* get() const { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

class FileActions {
 public:
  FileActions() { ::posix_spawn_file_actions_init(&actions_); }
  ~FileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

}  // namespace

ShellCommand::ShellCommand(const std::string& command, Direction direction, const std::string& host,
                           ErrorCode failure_code)
    : command_(command), host_(host), failure_code_(failure_code), direction_(direction) {
  int ends[2];
  auto fail = [&](int err) {
    return BraidError(failure_code_, "cannot start " + Named() + ": " + std::strerror(err));
  };
  if (::pipe2(ends, O_CLOEXEC) != 0) throw fail(errno);
  UniqueFd read_end(ends[0]);
  UniqueFd write_end(ends[1]);
  FileActions actions;
  // Never the server's own stdin or stdout: those may be its control channel.
  if (direction == Direction::kReadItsOutput) {
    ::posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(actions.get(), write_end.get(), STDOUT_FILENO);
  } else {
    ::posix_spawn_file_actions_adddup2(actions.get(), read_end.get(), STDIN_FILENO);
    ::posix_spawn_file_actions_adddup2(actions.get(), STDERR_FILENO, STDOUT_FILENO);
  }
  SpawnAttributes attributes;
  const char* argv[] = {"sh", "-c", command_.c_str(), nullptr};
  pid_t pid = -1;
  int err = ::posix_spawn(&pid, "/bin/sh", actions.get(), attributes.get(),
                          const_cast<char* const*>(argv), environ);
  if (err != 0) throw fail(err);
  MutexLock lock(mutex_);
  pid_ = pid;
  pipe_ = direction == Direction::kReadItsOutput ? std::move(read_end) : std::move(write_end);
}

ShellCommand::~ShellCommand() {
  Kill();
  Reap();
}

void ShellCommand::Kill() {
  MutexLock lock(mutex_);
  if (pid_ > 0) ::kill(-pid_, SIGKILL);  // the group: a shell's children too
}

std::optional<int> ShellCommand::Reap() {
  pid_t pid;
  {
    MutexLock lock(mutex_);
    pid = pid_;
  }
  if (pid < 0) return std::nullopt;
  // Waits without reaping, then reaps under the lock (Kill's pid stays ours).
  siginfo_t info{};
  while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
  }
  MutexLock lock(mutex_);
  int wstatus = 0;
  pid_t rc;
  while ((rc = ::waitpid(pid, &wstatus, 0)) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  if (rc < 0) return std::nullopt;  // ECHILD: reaped elsewhere; nothing more to learn
  return wstatus;
}

void ShellCommand::Finish() {
  // Our end closed first: a program reading its stdin sees its end.
  pipe_.Reset();
  std::optional<int> status = Reap();
  if (!status) return;
  const int wstatus = *status;
  const std::string what = Named();
  const bool stopped_reading = direction_ == Direction::kReadItsOutput && WIFSIGNALED(wstatus) &&
                               WTERMSIG(wstatus) == SIGPIPE;
  if (WIFSIGNALED(wstatus) && !stopped_reading) {
    throw BraidError(failure_code_,
                     what + " was killed by signal " + std::to_string(WTERMSIG(wstatus)));
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) != 0) {
    throw BraidError(failure_code_,
                     what + " exited with status " + std::to_string(WEXITSTATUS(wstatus)));
  }
}

}  // namespace braid
