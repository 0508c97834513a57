#include "security/ssh/ssh_channel.h"

#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <utility>

#include "braid/error.h"
#include "security/ssh/tcp_connect.h"

namespace braid {
namespace {

/// An op result meaning "stderr arrived, deliver it before waiting on".
/// libssh2's own codes are small negatives, so this cannot collide.
constexpr long kStderrOnly = -100000;
/// One read per call stays well inside int and libssh2's packet sizes.
constexpr std::size_t kMaxIo = std::size_t{256} * 1024;
constexpr std::size_t kMaxWriteChunk = std::size_t{32} * 1024;
/// Bounds stderr drained per turn, so a chatty stderr cannot starve stdout.
constexpr int kStderrReadsPerTurn = 16;
constexpr auto kCloseTimeout = std::chrono::seconds(10);

/// ssh reports signals by name; map the usual ones to the shell's 128+N.
int ExitStatusForSignal(std::string_view name) {
  struct Named {
    const char* name;
    int number;
  };
  static constexpr std::array<Named, 9> kSignals{{{"HUP", SIGHUP},
                                                  {"INT", SIGINT},
                                                  {"QUIT", SIGQUIT},
                                                  {"ILL", SIGILL},
                                                  {"ABRT", SIGABRT},
                                                  {"KILL", SIGKILL},
                                                  {"SEGV", SIGSEGV},
                                                  {"PIPE", SIGPIPE},
                                                  {"TERM", SIGTERM}}};
  for (const Named& s : kSignals) {
    if (name == s.name) {
      return 128 + s.number;
    }
  }
  return 255;
}

}  // namespace

SshChannel::SshChannel(std::shared_ptr<SshSession> session, LIBSSH2_CHANNEL* channel,
                       std::string host, StderrSink on_stderr)
    : session_(std::move(session)),
      channel_(channel),
      host_(std::move(host)),
      on_stderr_(std::move(on_stderr)) {}

SshChannel::~SshChannel() {
  // libssh2_channel_free closes the channel first if needed; the remote
  // command then sees its stdin and stdout go away.
  session_->Call([&]() -> long { return libssh2_channel_free(channel_); },
                 SshSession::Clock::now() + std::chrono::seconds(2));
}

void SshChannel::Exec(const std::string& command) {
  std::string error;
  const long rc =
      session_->Call([&]() -> long { return libssh2_channel_exec(channel_, command.c_str()); },
                     SshSession::Clock::now() + std::chrono::seconds(30), &error);
  if (rc < 0) {
    throw BraidError(ErrorCode::kRemoteMissing, "ssh server on " + host_ + " refused to run '" +
                                                    command + "' (" + error +
                                                    "); check the account's shell and sshd's "
                                                    "ForceCommand");
  }
}

void SshChannel::ThrowLost(const char* during, const std::string& error) const {
  throw BraidError(ErrorCode::kPeerLost, "ssh connection to " + host_ + " failed while " + during +
                                             " (" + error + "); rerun the same command to resume");
}

std::size_t SshChannel::ReadSome(void* buf, std::size_t n) {
  if (n == 0 || eof_) {
    return 0;
  }
  const std::size_t want = std::min(n, kMaxIo);
  char* out = static_cast<char*>(buf);
  for (;;) {
    std::string stderr_text;
    std::string error;
    const long rc = session_->Call(
        [&]() -> long {
          char chunk[4096];
          for (int i = 0; i < kStderrReadsPerTurn; ++i) {
            const ssize_t e = libssh2_channel_read_stderr(channel_, chunk, sizeof(chunk));
            if (e <= 0) {
              break;  // EAGAIN, end, or an error the stdout read will report
            }
            stderr_text.append(chunk, static_cast<std::size_t>(e));
          }
          const ssize_t r = libssh2_channel_read(channel_, out, want);
          if (r > 0) {
            return static_cast<long>(r);
          }
          if (r != 0 && r != LIBSSH2_ERROR_EAGAIN) {
            return static_cast<long>(r);
          }
          // eof() stays false while stderr or stdout data is still queued.
          if (libssh2_channel_eof(channel_) == 1) {
            return 0;
          }
          return stderr_text.empty() ? LIBSSH2_ERROR_EAGAIN : kStderrOnly;
        },
        SshSession::kNoDeadline, &error);
    if (!stderr_text.empty() && on_stderr_) {
      on_stderr_(host_, stderr_text);
    }
    if (rc > 0) {
      return static_cast<std::size_t>(rc);
    }
    if (rc == 0) {
      eof_ = true;
      return 0;
    }
    if (rc != kStderrOnly) {
      ThrowLost("reading", error);
    }
  }
}

void SshChannel::WriteAll(const void* buf, std::size_t n) {
  if (write_closed_) {
    throw BraidError(ErrorCode::kInternal, "write to " + host_ + " after its input was closed");
  }
  const char* p = static_cast<const char*>(buf);
  while (n > 0) {
    const std::size_t chunk = std::min(n, kMaxWriteChunk);
    std::string error;
    const long rc = session_->Call(
        [&]() -> long {
          const ssize_t w = libssh2_channel_write(channel_, p, chunk);
          return w == 0 ? LIBSSH2_ERROR_EAGAIN : static_cast<long>(w);
        },
        SshSession::kNoDeadline, &error);
    if (rc < 0) {
      ThrowLost("writing", error);
    }
    const std::size_t written = std::min(static_cast<std::size_t>(rc), chunk);
    p += written;
    n -= written;
  }
}

void SshChannel::CloseWrite() {
  if (write_closed_.exchange(true)) {
    return;
  }
  // A failure here means the connection is gone; the reader reports that.
  session_->Call([&]() -> long { return libssh2_channel_send_eof(channel_); },
                 SshSession::Clock::now() + kCloseTimeout);
}

std::optional<int> SshChannel::ExitStatus() {
  if (closed_) {
    return exit_status_;
  }
  if (!eof_) {
    const long at_eof = session_->Call([&]() -> long { return libssh2_channel_eof(channel_); },
                                       SshSession::Clock::now() + kCloseTimeout);
    if (at_eof != 1) {
      return std::nullopt;
    }
    eof_ = true;
  }
  // exit-status may follow EOF; it always precedes the server's close.
  const auto deadline = SshSession::Clock::now() + kCloseTimeout;
  session_->Call([&]() -> long { return libssh2_channel_close(channel_); }, deadline);
  const long waited =
      session_->Call([&]() -> long { return libssh2_channel_wait_closed(channel_); }, deadline);
  closed_ = true;
  write_closed_ = true;
  session_->Call(
      [&]() -> long {
        char* signal_name = nullptr;
        std::size_t signal_len = 0;
        libssh2_channel_get_exit_signal(channel_, &signal_name, &signal_len, nullptr, nullptr,
                                        nullptr, nullptr);
        if (signal_name != nullptr) {
          exit_status_ = ExitStatusForSignal(std::string_view(signal_name, signal_len));
          libssh2_free(session_->raw(), signal_name);
        } else if (waited == 0) {
          exit_status_ = libssh2_channel_get_exit_status(channel_);
        }
        return 0;
      },
      SshSession::kNoDeadline);
  return exit_status_;
}

std::string SshChannel::LocalAddress() const { return LocalSocketAddress(session_->fd()); }

void SshChannel::Abandon() {
  // ENOTCONN once the peer is gone is fine: the stream is over either way.
  ::shutdown(session_->fd(), SHUT_RDWR);
}

}  // namespace braid
