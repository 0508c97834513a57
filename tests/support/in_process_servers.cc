#include "support/in_process_servers.h"

#include <fcntl.h>
#include <linux/sockios.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <span>
#include <thread>

#include "agent/agent.h"
#include "braid/unique_fd.h"
#include "braid/wire.h"
#include "cli/command_line.h"
#include "proto/control_message.h"
#include "serve/server.h"
#include "transport/fd_byte_stream.h"

namespace braid::testing {
namespace {

std::size_t Index(Side side) { return static_cast<std::size_t>(side); }

/// Whether `bytes` (whole control frames, as ControlChannel writes them)
/// hold an ErrorMessage.
bool CarriesError(std::span<const std::uint8_t> bytes) {
  try {
    WireReader r(bytes);
    while (r.remaining() > 0) {
      std::uint32_t length = r.U32();
      std::span<const std::uint8_t> body = r.Bytes(length);
      if (std::holds_alternative<ErrorMessage>(DecodeMessage(body))) return true;
    }
  } catch (const BraidError&) {
    // Not whole frames: nothing to order.
  }
  return false;
}

/// Waits until the peer has read everything written on `fd` (SIOCOUTQ: bytes
/// not yet consumed), at most ErrorOrder::kHoldLimit.
void WaitUntilRead(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + ErrorOrder::kHoldLimit;
  int queued = 0;
  while (::ioctl(fd, SIOCOUTQ, &queued) == 0 && queued > 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

/// The server's side of the socketpair; with an ErrorOrder, it holds the
/// server's first ErrorMessage until its turn.
class ServerStream : public ByteStream {
 public:
  ServerStream(int fd, Side side, ErrorOrder* order)
      : fd_(fd, fd, {"in-process braid --serve read", "in-process braid --serve write"}),
        raw_fd_(fd),
        side_(side),
        order_(order) {}
  std::size_t ReadSome(void* buf, std::size_t n) override { return fd_.ReadSome(buf, n); }
  void WriteAll(const void* buf, std::size_t n) override {
    // ControlChannel writes whole frames under its own lock, one call each.
    bool ordered = order_ != nullptr && !error_sent_ &&
                   CarriesError({static_cast<const std::uint8_t*>(buf), n});
    if (ordered) order_->BeforeError(side_);
    fd_.WriteAll(buf, n);
    if (ordered) {
      error_sent_ = true;
      WaitUntilRead(raw_fd_);
      order_->AfterError(side_);
    }
  }
  void CloseWrite() override { fd_.CloseWrite(); }

 private:
  FdByteStream fd_;
  int raw_fd_;
  Side side_;
  ErrorOrder* order_;  ///< may be null; owned by the launcher, which outlives the server
  /// Written under ControlChannel's send lock only.
  bool error_sent_ = false;
};

/// The agent's side: the control stream to a RunServer thread, which it owns
/// and joins.
class InProcessChannel : public ServerChannel {
 public:
  InProcessChannel(UniqueFd agent_fd, UniqueFd server_fd, Side side, ErrorOrder* order,
                   std::string host, std::string local_address)
      : stream_(std::move(agent_fd), {"in-process braid --serve", "in-process braid --serve"}),
        host_(std::move(host)),
        local_address_(std::move(local_address)) {
    server_ = std::thread([this, server = std::move(server_fd), side, order] {
      ServerStream stream(server.get(), side, order);
      status_ = RunServer(stream);
      // `server` closes here, as a server process's end closes when it exits.
    });
  }
  ~InProcessChannel() override {
    stream_.Close();  // the server sees the end of its control stream and stops
    Join();
  }
  std::size_t ReadSome(void* buf, std::size_t n) override { return stream_.ReadSome(buf, n); }
  void WriteAll(const void* buf, std::size_t n) override { stream_.WriteAll(buf, n); }
  void CloseWrite() override { stream_.CloseWrite(); }
  std::string host() const override { return host_.empty() ? "localhost" : host_; }
  std::optional<int> ExitStatus() override {
    Join();
    return status_;
  }
  std::string LocalAddress() const override { return local_address_; }
  void Abandon() override { stream_.Shutdown(); }

 private:
  void Join() {
    if (server_.joinable()) server_.join();
  }

  // The agent's threads: its reader reads while its main thread writes or
  // abandons, as on any ServerChannel (FdByteStream allows it); host_ and
  // local_address_ are set before server_ starts and only read after.
  FdByteStream stream_;  ///< owns the agent's end of the socketpair
  std::string host_;
  std::string local_address_;
  std::thread server_;  ///< started in the constructor, joined by the agent's thread
  int status_ = -1;     ///< written by server_ before it ends; read after the join
};

/// Points fd 1 or 2 at a temporary file until Finish, which returns what was written.
class CapturedFd {
 public:
  explicit CapturedFd(int fd) : fd_(fd) {
    std::fflush(nullptr);
    char path[] = "/tmp/braid-agent-capture-XXXXXX";
    file_.Reset(::mkstemp(path));
    ::unlink(path);
    saved_.Reset(::dup(fd_));
    ::dup2(file_.get(), fd_);
  }
  std::string Finish() {
    std::fflush(nullptr);
    ::dup2(saved_.get(), fd_);
    std::string text;
    char buf[4096];
    ssize_t n = 0;
    ::lseek(file_.get(), 0, SEEK_SET);
    while ((n = ::read(file_.get(), buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
    return text;
  }

 private:
  int fd_;
  UniqueFd file_;
  UniqueFd saved_;
};

}  // namespace

void ErrorOrder::BeforeError(Side side) {
  const auto deadline = std::chrono::steady_clock::now() + kHoldLimit;
  MutexLock lock(mu_);
  produced_[Index(side)] = true;
  cv_.notify_all();
  const std::size_t other = 1 - Index(side);
  while (!produced_[other] || (side != first_ && !sent_[Index(first_)])) {
    if (cv_.wait_until(lock.native(), deadline) == std::cv_status::timeout) {
      gave_up_ = true;
      return;
    }
  }
}

void ErrorOrder::AfterError(Side side) {
  MutexLock lock(mu_);
  sent_[Index(side)] = true;
  cv_.notify_all();
}

bool ErrorOrder::Kept() {
  MutexLock lock(mu_);
  return sent_[0] && sent_[1] && !gave_up_;
}

std::string ErrorOrder::Describe() {
  MutexLock lock(mu_);
  std::string out;
  for (std::size_t i = 0; i < 2; ++i) {
    out += std::string(i == 0 ? "source" : "sink") + (produced_[i] ? " produced" : " silent") +
           (sent_[i] ? " sent; " : "; ");
  }
  return out + (gave_up_ ? "gave up" : "in time");
}

InProcessLauncher::InProcessLauncher() {
  // As main does, though FdByteStream sends with MSG_NOSIGNAL anyway.
  ::signal(SIGPIPE, SIG_IGN);
}

InProcessLauncher::~InProcessLauncher() = default;

LaunchedServer InProcessLauncher::Launch(Side side, const Endpoint& endpoint,
                                         const Options& /*options*/, StderrSink /*on_stderr*/) {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    throw BraidError(ErrorCode::kInternal, "socketpair failed");
  }
  ++launched_;
  auto channel =
      std::make_unique<InProcessChannel>(UniqueFd(sv[0]), UniqueFd(sv[1]), side, order_.get(),
                                         endpoint.host, local_address_[Index(side)]);
  return {std::move(channel), "braid --serve (in process)"};
}

void InProcessLauncher::SetLocalAddress(Side side, std::string address) {
  local_address_[Index(side)] = std::move(address);
}

void InProcessLauncher::OrderErrors(Side first) { order_ = std::make_unique<ErrorOrder>(first); }

AgentRun RunAgentInProcess(const std::vector<std::string>& args, ServerLauncher& launcher) {
  std::vector<const char*> argv{"braid"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  argv.push_back(nullptr);
  CommandLine cl = ParseCommandLine(static_cast<int>(argv.size() - 1), argv.data());
  AgentRun run;
  CapturedFd out(STDOUT_FILENO);
  CapturedFd err(STDERR_FILENO);
  run.exit_code = RunAgent(cl.options, launcher);
  run.err = err.Finish();
  run.out = out.Finish();
  return run;
}

}  // namespace braid::testing
