#include "support/serve_child.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <stdexcept>

#include "support/background_braid.h"

namespace braid::testing {

ServeChild::ServeChild(const std::string& dir, const std::vector<std::string>& extra_args) {
  static int serial = 0;
  err_path_ = dir + "/serve-" + std::to_string(++serial) + ".err";
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw std::runtime_error("socketpair failed");
  }
  fd_.Reset(sv[0]);
  UniqueFd child(sv[1]);
  UniqueFd err(::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  UniqueFd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!err.valid() || !in.valid()) throw std::runtime_error("cannot open " + err_path_);
  // Built before the fork: the child only execs.
  std::vector<const char*> argv{"braid", "--serve", "--serve-fd", "3"};
  for (const std::string& a : extra_args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    // Only async-signal-safe calls until exec; dup2 clears FD_CLOEXEC on the copy.
    ::dup2(in.get(), STDIN_FILENO);
    ::dup2(err.get(), STDOUT_FILENO);
    ::dup2(err.get(), STDERR_FILENO);
    if (child.get() == 3) {
      ::fcntl(3, F_SETFD, 0);
    } else {
      ::dup2(child.get(), 3);
    }
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(BRAID_BINARY, const_cast<char* const*>(argv.data()));
    ::_exit(127);
  }
  control_ = std::make_unique<FakeControl>(fd_.get(), fd_.get(), 20);
}

ServeChild::~ServeChild() {
  if (status_ == -2 && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
}

bool ServeChild::Greet() {
  control_->Send(Hello{kControlMagic, kProtocolVersion, BraidVersion(), ""});
  return control_->Await<HelloReply>().has_value();
}

void ServeChild::CloseControl() { ::shutdown(fd_.get(), SHUT_RDWR); }

bool ServeChild::running() {
  if (status_ != -2) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) != pid_) return true;
  status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return false;
}

int ServeChild::Wait(double timeout_seconds) {
  if (WaitFor([&] { return !running(); }, timeout_seconds)) return status_;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  status_ = -1;
  return status_;
}

std::string ServeChild::err() const {
  std::ifstream in(err_path_);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

namespace {

/// -1 also when the process went away while it was read (libstdc++ throws then).
long StatusKib(pid_t pid, const std::string& field) {
  try {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind(field, 0) == 0) return std::stol(line.substr(field.size()));
    }
  } catch (const std::exception&) {
  }
  return -1;
}

}  // namespace

long ResidentKib(pid_t pid) { return StatusKib(pid, "VmRSS:"); }

long PeakResidentKib(pid_t pid) { return StatusKib(pid, "VmHWM:"); }

}  // namespace braid::testing
