#include "security/ssh/ssh_session.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <unistd.h>

#include <mutex>
#include <utility>

#include "braid/error.h"

namespace braid {
namespace {

/// Short enough that a thread whose wake-up was taken by another still retries
/// promptly; long enough not to spin.
constexpr int kPollSliceMs = 50;
constexpr int kKeepaliveIntervalSeconds = 30;

void InitLibssh2Once() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (libssh2_init(0) != 0) {
      throw BraidError(ErrorCode::kInternal, "libssh2 failed to initialise its crypto backend");
    }
  });
}

}  // namespace

SshSession::SshSession(std::string host, int fd) : host_(std::move(host)), fd_(fd) {
  try {
    InitLibssh2Once();
  } catch (...) {
    ::close(fd_);
    throw;
  }
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  session_ = libssh2_session_init();
  if (wake_fd_ < 0 || session_ == nullptr) {
    if (session_ != nullptr) {
      libssh2_session_free(session_);
    }
    if (wake_fd_ >= 0) {
      ::close(wake_fd_);
    }
    ::close(fd_);
    throw BraidError(ErrorCode::kInternal,
                     "cannot start an ssh session to " + host_ + ": out of memory or descriptors");
  }
  libssh2_session_set_blocking(session_, 1);
}

SshSession::~SshSession() {
  {
    MutexLock lock(mu_);
    // Blocking with a short timeout, so teardown is polite but bounded.
    libssh2_session_set_blocking(session_, 1);
    libssh2_session_set_timeout(session_, 2000);
    libssh2_session_disconnect(session_, "braid: done");
    libssh2_session_free(session_);
    session_ = nullptr;
  }
  ::close(wake_fd_);
  ::close(fd_);
}

void SshSession::StartSharing() {
  MutexLock lock(mu_);
  libssh2_session_set_blocking(session_, 0);
  // No reply asked: libssh2 does not track replies, so one would not detect a
  // dead peer. The traffic itself keeps NAT state alive and makes a dead peer
  // surface through TCP's retransmission timeout (TCP_USER_TIMEOUT).
  libssh2_keepalive_config(session_, 0, kKeepaliveIntervalSeconds);
  next_keepalive_check_ = Clock::now() + std::chrono::seconds(kKeepaliveIntervalSeconds);
}

std::string SshSession::LastErrorLocked() const {
  char* msg = nullptr;
  int len = 0;
  libssh2_session_last_error(session_, &msg, &len, 0);
  if (msg == nullptr || len <= 0) {
    return "unknown libssh2 error";
  }
  return std::string(msg, static_cast<std::size_t>(len));
}

long SshSession::Call(const std::function<long()>& op, Clock::time_point deadline,
                      std::string* error) {
  MutexLock lock(mu_);
  const std::uint64_t token = ++next_token_;
  for (;;) {
    while (outbound_owner_ != 0 && outbound_owner_ != token) turn_.wait(lock.native());
    long rc = op();
    if (rc != LIBSSH2_ERROR_EAGAIN) {
      if (outbound_owner_ == token) {
        outbound_owner_ = 0;
        turn_.notify_all();
      }
      if (rc < 0 && error != nullptr) {
        *error = LastErrorLocked();
      }
      SignalProgressLocked();
      return rc;
    }
    const int directions = libssh2_session_block_directions(session_);
    if ((directions & LIBSSH2_SESSION_BLOCK_OUTBOUND) != 0) {
      outbound_owner_ = token;
    } else if (outbound_owner_ == token) {
      outbound_owner_ = 0;
      turn_.notify_all();
    }
    if (Clock::now() >= deadline) {
      if (outbound_owner_ == token) {
        outbound_owner_ = 0;
        turn_.notify_all();
      }
      if (error != nullptr) {
        *error = "timed out";
      }
      return LIBSSH2_ERROR_TIMEOUT;
    }
    const std::uint64_t seen = generation_.load();
    ++waiters_;
    lock.Unlock();
    const bool idle = WaitForProgress(directions, seen);
    lock.Lock();
    --waiters_;
    if (idle) {
      MaybeKeepaliveLocked();
    }
  }
}

bool SshSession::WaitForProgress(int directions, std::uint64_t seen_generation) {
  if (generation_.load() != seen_generation) {
    return false;
  }
  short events = 0;
  if ((directions & LIBSSH2_SESSION_BLOCK_INBOUND) != 0) {
    events |= POLLIN;
  }
  if ((directions & LIBSSH2_SESSION_BLOCK_OUTBOUND) != 0) {
    events |= POLLOUT;
  }
  // Blocked on the peer's window rather than the socket: the adjust arrives as input.
  if (events == 0) {
    events = POLLIN;
  }
  pollfd fds[2] = {{fd_, events, 0}, {wake_fd_, POLLIN, 0}};
  const int rc = ::poll(fds, 2, kPollSliceMs);
  if (rc > 0 && (fds[1].revents & POLLIN) != 0) {
    std::uint64_t drained = 0;
    [[maybe_unused]] ssize_t n = ::read(wake_fd_, &drained, sizeof(drained));
  }
  return rc == 0;
}

void SshSession::SignalProgressLocked() {
  generation_.fetch_add(1);
  if (waiters_ > 0) {
    const std::uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof(one));
  }
}

void SshSession::MaybeKeepaliveLocked() {
  const Clock::time_point now = Clock::now();
  if (now < next_keepalive_check_ || outbound_owner_ != 0) {
    return;
  }
  next_keepalive_check_ = now + std::chrono::seconds(1);
  // libssh2 keeps a half-sent keepalive pointing at its stack and then refuses
  // every other send, so only send when the socket buffer surely takes it whole.
  int queued = 0;
  int sndbuf = 0;
  socklen_t len = sizeof(sndbuf);
  if (::ioctl(fd_, TIOCOUTQ, &queued) != 0 ||
      ::getsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) != 0 || queued > sndbuf / 4) {
    return;
  }
  int seconds_to_next = 0;
  libssh2_keepalive_send(session_, &seconds_to_next);
}

}  // namespace braid
