#include "launch/ssh_command_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

#include "braid/error.h"
#include "braid/mutex.h"
#include "braid/unique_fd.h"
#include "launch/child_process.h"
#include "launch/ssh_client_errors.h"
#include "transport/fd_byte_stream.h"

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

/// The child for `spec`: the client on the socketpair (stdin and stdout), its
/// stderr to a pipe.
ChildSpec SshChildSpec(const SshCommandSpec& spec) {
  ChildSpec child;
  child.what = "the ssh command for " + spec.host;
  child.path = kShell;
  child.argv = SshCommandArgv(spec);
  child.pipe_stderr = true;
  return child;
}

/// The reader thread reads the stream and stderr; writers write the stream; a
/// stall watch may Abandon() from a third thread. mu_ guards what they share.
class SshCommandChannel : public ServerChannel {
 public:
  SshCommandChannel(const SshCommandSpec& spec, StderrSink on_stderr)
      : child_(SshChildSpec(spec)),
        stream_(child_.TakeControl(),
                {"reading from the ssh command for " + spec.host + " failed",
                 "the ssh command for " + spec.host + " stopped taking input"}),
        host_(spec.host),
        command_(spec.command),
        on_stderr_(std::move(on_stderr)),
        err_(child_.TakeStderr()) {}

  ~SshCommandChannel() override {
    stream_.Close();  // ssh sees the end of its input and closes the session
    if (!child_.reaped()) Finish();
  }
  SshCommandChannel(const SshCommandChannel&) = delete;
  SshCommandChannel& operator=(const SshCommandChannel&) = delete;

  /// Also collects (or passes on) whatever ssh writes to stderr meanwhile, so a
  /// chatty stderr can never block ssh while the agent waits for control bytes.
  std::size_t ReadSome(void* buf, std::size_t n) override {
    for (;;) {
      pollfd fds[2] = {{stream_.read_fd(), POLLIN, 0}, {ErrFd(), POLLIN, 0}};  // -1 is skipped
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        throw BraidError(ErrorCode::kInternal, "poll on the ssh command for " + host_ +
                                                   " failed: " + std::strerror(errno));
      }
      if (fds[1].revents != 0) ReadStderrOnce();
      if (fds[0].revents == 0) continue;
      const std::size_t r = stream_.ReadSome(buf, n);
      if (r > 0) MarkConnected();
      return r;
    }
  }

  void WriteAll(const void* buf, std::size_t n) override { stream_.WriteAll(buf, n); }
  void CloseWrite() override { stream_.CloseWrite(); }
  std::string host() const override { return host_; }

  std::optional<int> ExitStatus() override {
    if (!child_.reaped()) Finish();
    return child_.status();
  }

  /// ssh's socket is not ours; ServerEnd asks the routing table instead.
  std::string LocalAddress() const override { return ""; }

  void Abandon() override {
    if (!child_.Signal(SIGTERM)) {
      std::fprintf(stderr, "braid: cannot stop the ssh command for %s: %s\n", host_.c_str(),
                   std::strerror(errno));
    }
    stream_.Shutdown();  // the reader returns now, whatever ssh does
  }

  std::optional<BraidError> DescribeFailure() override {
    const std::optional<int> status = ExitStatus();
    if (!status) return std::nullopt;
    MutexLock lock(mu_);
    SshClientEnd end;
    end.host = host_;
    end.command = command_;
    end.exit_status = *status;
    end.stderr_text = kept_;
    end.connected = connected_;
    end.local_exec_failed = (*status == 126 || *status == 127) &&
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
  int ErrFd() BRAID_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    return err_.get();
  }

  /// One read from ssh's stderr; closes our end at its end of file.
  void ReadStderrOnce() BRAID_EXCLUDES(mu_) {
    MutexLock lock(mu_);
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
  void MarkConnected() BRAID_EXCLUDES(mu_) {
    MutexLock lock(mu_);
    if (connected_) return;
    connected_ = true;
    FlushPendingLocked();
  }

  void FlushPendingLocked() BRAID_REQUIRES(mu_) {
    if (!pending_.empty() && on_stderr_) on_stderr_(host_, pending_);
    pending_.clear();
  }

  /// Drains stderr and reaps ssh, escalating to SIGTERM and SIGKILL when it
  /// does not exit by itself; never returns with the child unreaped.
  void Finish() {
    const Clock::time_point start = Clock::now();
    bool termed = false;
    for (;;) {
      if (child_.TryWait()) {
        DrainStderr(0);  // what it wrote just before exiting
        return;
      }
      const auto waited = Clock::now() - start;
      if (!termed && waited >= kExitWait) {
        child_.Signal(SIGTERM);
        termed = true;
      } else if (waited >= kExitWait + kTermWait) {
        child_.Signal(SIGKILL);
        child_.Wait();
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

  ChildProcess child_;   ///< declared first: the stream and err_ take its descriptors
  FdByteStream stream_;  ///< our end of the socketpair; thread-safe as ByteStream asks
  const std::string host_;
  const std::string command_;
  /// Set in the constructor; called only under mu_, so its calls never overlap.
  const StderrSink on_stderr_;
  Mutex mu_;
  UniqueFd err_ BRAID_GUARDED_BY(mu_);  ///< ssh's stderr; closed at its end of file
  /// The last of ssh's stderr, to explain a failure.
  std::string kept_ BRAID_GUARDED_BY(mu_);
  /// Stderr not yet shown: held back until braid answers.
  std::string pending_ BRAID_GUARDED_BY(mu_);
  bool connected_ BRAID_GUARDED_BY(mu_) = false;
};

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
  return std::make_unique<SshCommandChannel>(spec, std::move(on_stderr));
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
