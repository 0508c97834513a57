#include "launch/ssh_command_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>

#include "braid/error.h"
#include "braid/unique_fd.h"
#include "launch/ssh_client_errors.h"

namespace braid {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kShell = "/bin/sh";
/// $0 of that shell: its own errors read "braid-ssh-command: 1: exec: ...", which
/// tells a missing -S program apart from a remote shell's "braid: not found".
constexpr const char* kShellName = "braid-ssh-command";
/// As the libssh2 path: traffic every 30 s keeps NAT state of an idle control channel.
constexpr const char* kKeepalive = "ServerAliveInterval=30";
constexpr std::size_t kMaxStderrKept = std::size_t{16} * 1024;
constexpr std::size_t kStderrChunk = 4096;
/// Once the control stream has ended: how long ssh may take to print its last
/// words and exit before it is asked (SIGTERM), then made (SIGKILL), to go.
constexpr auto kExitWait = std::chrono::seconds(5);
constexpr auto kTermWait = std::chrono::seconds(2);
constexpr int kPollSliceMs = 20;

bool MentionsNoCase(std::string_view text, std::string_view needle) {
  auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
  return it != text.end();
}

/// Keeps the last `limit` bytes of `text`.
void AppendCapped(std::string& text, std::string_view more, std::size_t limit) {
  text.append(more);
  if (text.size() > limit) text.erase(0, text.size() - limit);
}

class SshCommandChannel : public ServerChannel {
 public:
  SshCommandChannel(UniqueFd sock, UniqueFd err, pid_t pid, const SshCommandSpec& spec,
                    StderrSink on_stderr)
      : sock_(std::move(sock)),
        err_(std::move(err)),
        pid_(pid),
        host_(spec.host),
        command_(spec.command),
        on_stderr_(std::move(on_stderr)) {}

  ~SshCommandChannel() override {
    if (reaped_) return;
    sock_.Reset();  // ssh sees the end of its input and closes the session
    Finish();
  }
  SshCommandChannel(const SshCommandChannel&) = delete;
  SshCommandChannel& operator=(const SshCommandChannel&) = delete;

  /// Also collects (or passes on) whatever ssh writes to stderr meanwhile, so a
  /// chatty stderr can never block ssh while the agent waits for control bytes.
  std::size_t ReadSome(void* buf, std::size_t n) override {
    for (;;) {
      pollfd fds[2] = {{sock_.get(), POLLIN, 0}, {ErrFd(), POLLIN, 0}};  // fd -1 is skipped
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        throw BraidError(ErrorCode::kInternal, "poll on the ssh command for " + host_ +
                                                   " failed: " + std::strerror(errno));
      }
      if (fds[1].revents != 0) ReadStderrOnce();
      if (fds[0].revents == 0) continue;
      const ssize_t r = ::read(sock_.get(), buf, n);
      if (r > 0) {
        MarkConnected();
        return static_cast<std::size_t>(r);
      }
      if (r == 0 || errno == ECONNRESET) return 0;
      if (errno == EINTR || errno == EAGAIN) continue;
      throw BraidError(ErrorCode::kPeerLost, "reading from the ssh command for " + host_ +
                                                 " failed: " + std::strerror(errno));
    }
  }

  void WriteAll(const void* buf, std::size_t n) override {
    const auto* p = static_cast<const std::uint8_t*>(buf);
    while (n > 0) {
      const ssize_t w = ::send(sock_.get(), p, n, MSG_NOSIGNAL);
      if (w < 0) {
        if (errno == EINTR) continue;
        throw BraidError(
            ErrorCode::kPeerLost,
            "the ssh command for " + host_ + " stopped taking input: " + std::strerror(errno));
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
  }

  void CloseWrite() override {
    // ENOTCONN once ssh is gone is fine: the reader reports the end.
    ::shutdown(sock_.get(), SHUT_WR);
  }

  std::string host() const override { return host_; }

  std::optional<int> ExitStatus() override {
    if (!reaped_) Finish();
    return status_;
  }

  /// ssh's socket is not ours; ServerEnd asks the routing table instead.
  std::string LocalAddress() const override { return ""; }

  void Abandon() override {
    // reaped_ is only set after the reader has ended, so the pid is still ours.
    if (!reaped_ && ::kill(pid_, SIGTERM) != 0 && errno != ESRCH) {
      std::fprintf(stderr, "braid: cannot stop the ssh command for %s: %s\n", host_.c_str(),
                   std::strerror(errno));
    }
    ::shutdown(sock_.get(), SHUT_RDWR);  // the reader returns now, whatever ssh does
  }

  std::optional<BraidError> DescribeFailure() override {
    ExitStatus();
    if (!status_) return std::nullopt;
    std::lock_guard lock(mu_);
    SshClientEnd end;
    end.host = host_;
    end.command = command_;
    end.exit_status = *status_;
    end.stderr_text = kept_;
    end.connected = connected_;
    end.local_exec_failed = (*status_ == 126 || *status_ == 127) &&
                            kept_.find(std::string(kShellName) + ": ") != std::string::npos;
    std::optional<BraidError> error = DescribeSshClientEnd(end);
    if (error) {
      pending_.clear();  // the message quotes it
    } else {
      FlushPendingLocked();  // the remote shell's own words, as the libssh2 path shows them
    }
    return error;
  }

 private:
  int ErrFd() {
    std::lock_guard lock(mu_);
    return err_.get();
  }

  /// One read from ssh's stderr; closes our end at its end of file.
  void ReadStderrOnce() {
    std::lock_guard lock(mu_);
    if (!err_.valid()) return;
    char chunk[kStderrChunk];
    const ssize_t r = ::read(err_.get(), chunk, sizeof(chunk));
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (r <= 0) {
      err_.Reset();
      return;
    }
    const std::string_view text(chunk, static_cast<std::size_t>(r));
    AppendCapped(kept_, text, kMaxStderrKept);
    if (connected_) {
      if (on_stderr_) on_stderr_(host_, text);
    } else {
      AppendCapped(pending_, text, kMaxStderrKept);
    }
  }

  /// The remote braid answered: what ssh said on the way (warnings) is shown now,
  /// and the rest as it comes.
  void MarkConnected() {
    std::lock_guard lock(mu_);
    if (connected_) return;
    connected_ = true;
    FlushPendingLocked();
  }

  void FlushPendingLocked() {
    if (!pending_.empty() && on_stderr_) on_stderr_(host_, pending_);
    pending_.clear();
  }

  /// Drains stderr and reaps ssh, escalating to SIGTERM and SIGKILL when it
  /// does not exit by itself; never returns with the child unreaped.
  void Finish() {
    const Clock::time_point start = Clock::now();
    bool termed = false;
    for (;;) {
      int status = 0;
      const pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        reaped_ = true;
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        DrainStderr(0);  // what it wrote just before exiting
        return;
      }
      if (r < 0 && errno != EINTR) {
        reaped_ = true;  // ECHILD: not ours to wait for any more
        return;
      }
      const auto waited = Clock::now() - start;
      if (!termed && waited >= kExitWait) {
        ::kill(pid_, SIGTERM);
        termed = true;
      } else if (waited >= kExitWait + kTermWait) {
        ::kill(pid_, SIGKILL);
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        reaped_ = true;
        status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return;
      }
      DrainStderr(kPollSliceMs);
    }
  }

  /// Reads stderr until nothing arrives for `timeout_ms`. A ProxyJump helper
  /// may hold stderr open after ssh exits, so this never waits for its end.
  void DrainStderr(int timeout_ms) {
    for (;;) {
      pollfd pfd{ErrFd(), POLLIN, 0};
      if (pfd.fd < 0) {
        if (timeout_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
        return;
      }
      const int rc = ::poll(&pfd, 1, timeout_ms);
      if (rc < 0 && errno == EINTR) continue;
      if (rc <= 0) return;
      ReadStderrOnce();
    }
  }

  UniqueFd sock_;
  std::mutex mu_;  ///< guards err_ and the stderr text below
  UniqueFd err_;
  const pid_t pid_;
  const std::string host_;
  const std::string command_;
  StderrSink on_stderr_;
  std::string kept_;     ///< the last of ssh's stderr, to explain a failure
  std::string pending_;  ///< stderr not yet shown: held back until braid answers
  bool connected_ = false;
  std::atomic<bool> reaped_{false};
  std::optional<int> status_;
};

/// Moves `fd` above the standard descriptors (close-on-exec), so the dup2s
/// below cannot overwrite one source with another. Async-signal-safe.
int Lift(int fd) { return ::fcntl(fd, F_DUPFD_CLOEXEC, 3); }

}  // namespace

std::vector<std::string> SshCommandArgv(const SshCommandSpec& spec) {
  std::vector<std::string> args{kShell, "-c", "exec " + spec.command + " \"$@\"", kShellName,
                                "-T"};  // never a pty: it would mangle the binary stream
  // An interval the user chose (in -S) wins: ssh takes the first value it sees.
  if (!MentionsNoCase(spec.command, "ServerAliveInterval")) {
    args.insert(args.end(), {"-o", kKeepalive});
  }
  if (spec.port != 0) args.insert(args.end(), {"-p", std::to_string(spec.port)});
  for (const std::string& file : spec.identity_files) args.insert(args.end(), {"-i", file});
  if (spec.accept_new_host_key) {
    args.insert(args.end(), {"-o", "StrictHostKeyChecking=accept-new"});
  }
  if (!spec.user.empty()) args.insert(args.end(), {"-l", spec.user});
  args.push_back(spec.host);
  args.push_back(spec.remote_command);  // one word: ssh sends it verbatim, as libssh2 does
  return args;
}

std::unique_ptr<ServerChannel> SpawnSshCommand(const SshCommandSpec& spec, StderrSink on_stderr) {
  std::vector<std::string> args = SshCommandArgv(spec);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  auto fail = [&spec](const char* what) -> BraidError {
    return BraidError(ErrorCode::kInternal, std::string("cannot start the ssh command for ") +
                                                spec.host + ": " + what + ": " +
                                                std::strerror(errno));
  };
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw fail("socketpair");
  UniqueFd parent(sv[0]);
  UniqueFd child(sv[1]);
  int ep[2];
  if (::pipe2(ep, O_CLOEXEC) != 0) throw fail("pipe");
  UniqueFd err_read(ep[0]);
  UniqueFd err_write(ep[1]);

  const pid_t pid = ::fork();
  if (pid < 0) throw fail("fork");
  if (pid == 0) {
    // Only async-signal-safe calls until exec.
    const int io = Lift(child.get());
    const int err = Lift(err_write.get());
    if (io < 0 || err < 0 || ::dup2(io, STDIN_FILENO) < 0 || ::dup2(io, STDOUT_FILENO) < 0 ||
        ::dup2(err, STDERR_FILENO) < 0) {
      ::_exit(127);
    }
    // Ctrl-C is the agent's: it sends Abort, so the sink can say what it kept.
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGPIPE, SIG_DFL);
    ::execv(kShell, argv.data());
    ::_exit(127);
  }
  return std::make_unique<SshCommandChannel>(std::move(parent), std::move(err_read), pid, spec,
                                             std::move(on_stderr));
}

std::string LocalAddressToward(const std::string& address) {
  sockaddr_storage peer{};
  socklen_t peer_len = 0;
  auto* v4 = reinterpret_cast<sockaddr_in*>(&peer);
  auto* v6 = reinterpret_cast<sockaddr_in6*>(&peer);
  if (::inet_pton(AF_INET, address.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(9);  // any port: connect() on UDP only picks a route
    peer_len = sizeof(sockaddr_in);
  } else if (::inet_pton(AF_INET6, address.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(9);
    peer_len = sizeof(sockaddr_in6);
  } else {
    return "";
  }
  UniqueFd fd(::socket(peer.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  sockaddr_storage local{};
  socklen_t local_len = sizeof(local);
  if (!fd.valid() || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&peer), peer_len) != 0 ||
      ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &local_len) != 0) {
    return "";
  }
  char text[INET6_ADDRSTRLEN] = {};
  const void* where =
      local.ss_family == AF_INET
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&local)->sin_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(&local)->sin6_addr);
  if (::inet_ntop(local.ss_family, where, text, sizeof(text)) == nullptr) return "";
  return text;
}

}  // namespace braid
