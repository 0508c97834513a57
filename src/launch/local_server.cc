#include "launch/local_server.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "braid/error.h"
#include "braid/unique_fd.h"

namespace braid {
namespace {

/// The fd number the child finds its control stream on.
constexpr int kChildControlFd = 3;

class LocalServerChannel : public ServerChannel {
 public:
  LocalServerChannel(UniqueFd fd, pid_t pid) : fd_(std::move(fd)), pid_(pid) {}
  ~LocalServerChannel() override {
    fd_.Reset();  // the child sees end of stream and exits
    if (!reaped_) Wait();
  }

  std::size_t ReadSome(void* buf, std::size_t n) override {
    for (;;) {
      ssize_t r = ::read(fd_.get(), buf, n);
      if (r >= 0) return static_cast<std::size_t>(r);
      if (errno == EINTR) continue;
      if (errno == ECONNRESET) return 0;
      throw BraidError(ErrorCode::kPeerLost,
                       std::string("local braid --serve: ") + std::strerror(errno));
    }
  }
  void WriteAll(const void* buf, std::size_t n) override {
    const auto* p = static_cast<const std::uint8_t*>(buf);
    while (n > 0) {
      ssize_t w = ::send(fd_.get(), p, n, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        throw BraidError(ErrorCode::kPeerLost,
                         std::string("local braid --serve: ") + std::strerror(errno));
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }
  void CloseWrite() override { ::shutdown(fd_.get(), SHUT_WR); }
  std::string host() const override { return "localhost"; }
  std::optional<int> ExitStatus() override {
    if (!reaped_) Wait();
    return status_;
  }
  std::string LocalAddress() const override { return "127.0.0.1"; }
  void Abandon() override {
    // Not reaped before the reader has ended, so the pid is still ours; a
    // stopped child dies of SIGKILL too.
    if (!reaped_ && ::kill(pid_, SIGKILL) != 0 && errno != ESRCH) {
      std::fprintf(stderr, "braid: cannot stop the local braid --serve: %s\n",
                   std::strerror(errno));
    }
    ::shutdown(fd_.get(), SHUT_RDWR);
  }

 private:
  void Wait() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  UniqueFd fd_;
  pid_t pid_;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace

std::unique_ptr<ServerChannel> SpawnLocalServer() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw BraidError(ErrorCode::kInternal,
                     std::string("cannot create a control socket: ") + std::strerror(errno));
  }
  UniqueFd parent(sv[0]);
  UniqueFd child(sv[1]);
  pid_t pid = ::fork();
  if (pid < 0) {
    throw BraidError(ErrorCode::kInternal,
                     std::string("cannot start a local server: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // Only async-signal-safe calls until exec.
    if (child.get() == kChildControlFd) {
      ::fcntl(kChildControlFd, F_SETFD, 0);
    } else {
      ::dup2(child.get(), kChildControlFd);  // dup2 clears FD_CLOEXEC on the copy
    }
    // Ctrl-C is the agent's to handle; it tells the child over the channel.
    ::signal(SIGINT, SIG_IGN);
    const char* argv[] = {"braid", "--serve", "--serve-fd", "3", nullptr};
    ::execv("/proc/self/exe", const_cast<char* const*>(argv));
    ::_exit(127);
  }
  return std::make_unique<LocalServerChannel>(std::move(parent), pid);
}

}  // namespace braid
