#include "support/background_braid.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "support/sshd_fixture.h"

namespace braid::testing {
BackgroundBraid::BackgroundBraid(const std::vector<std::string>& args, const std::string& dir) {
  static int serial = 0;
  ++serial;
  out_path_ = dir + "/braid-" + std::to_string(serial) + ".out";
  err_path_ = dir + "/braid-" + std::to_string(serial) + ".err";
  std::string home = SshdFixture::Get().home();
  std::vector<std::string> argv{"braid"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int out = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int in = ::open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0) ::_exit(126);
    ::dup2(in, STDIN_FILENO);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    ::setenv("HOME", home.c_str(), 1);
    ::unsetenv("SSH_AUTH_SOCK");
    ::execv(BRAID_BINARY, cargv.data());
    ::_exit(127);
  }
}

BackgroundBraid::~BackgroundBraid() {
  if (status_ < 0 && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

void BackgroundBraid::Signal(int sig) const {
  if (status_ < 0) ::kill(pid_, sig);
}

int BackgroundBraid::Wait(int timeout_seconds) {
  if (status_ >= 0) return status_;
  int status = 0;
  bool done = WaitFor([&] { return ::waitpid(pid_, &status, WNOHANG) == pid_; }, timeout_seconds);
  if (!done) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status, 0);
  }
  status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return status_;
}

std::string BackgroundBraid::err() const { return ReadWhole(err_path_); }
std::string BackgroundBraid::out() const { return ReadWhole(out_path_); }

}  // namespace braid::testing
