#pragma once
/// One libssh2 session and its TCP socket, shared (shared_ptr) by the connection
/// and every channel opened on it, so a channel may outlive the connection.
///
/// libssh2 is not thread-safe within a session, yet a control channel has a
/// reader thread and writer threads. So the session runs non-blocking and every
/// libssh2 call goes through Call(), which holds one mutex for the call and, on
/// EAGAIN, releases it while polling the socket so the other thread gets a turn.

#include <libssh2.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <string>

#include "braid/mutex.h"

namespace braid {

class SshSession {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr Clock::time_point kNoDeadline = Clock::time_point::max();

  /// Takes ownership of the connected socket `fd` (closed even if this throws).
  /// `host` names the server in messages. Starts in blocking mode, for Open().
  SshSession(std::string host, int fd);
  ~SshSession();
  SshSession(const SshSession&) = delete;
  SshSession& operator=(const SshSession&) = delete;

  /// The raw session, for the single-threaded setup (handshake, auth) only.
  LIBSSH2_SESSION* raw() const { return session_; }
  int fd() const { return fd_; }
  const std::string& host() const { return host_; }

  /// Ends the single-threaded setup: non-blocking from here on, keepalives on.
  void StartSharing();

  /// Runs `op` under the session lock until it returns something other than
  /// LIBSSH2_ERROR_EAGAIN, then returns that. Past `deadline` returns
  /// LIBSSH2_ERROR_TIMEOUT. When the result is negative and `error` is given,
  /// it receives libssh2's message for it.
  long Call(const std::function<long()>& op, Clock::time_point deadline = kNoDeadline,
            std::string* error = nullptr) BRAID_EXCLUDES(mu_);

  /// libssh2's text for the last error; call only inside an op or during setup
  /// (not annotated: setup runs on one thread, without the lock).
  std::string LastErrorLocked() const;

 private:
  /// Waits for the socket (or another thread's progress) for a short slice.
  /// Returns true when nothing happened, i.e. the connection was idle.
  bool WaitForProgress(int directions, std::uint64_t seen_generation);
  /// Wakes threads waiting in WaitForProgress; call with the lock held.
  void SignalProgressLocked() BRAID_REQUIRES(mu_);
  /// Sends a keepalive when due and safe; call with the lock held.
  void MaybeKeepaliveLocked() BRAID_REQUIRES(mu_);

  const std::string host_;
  const int fd_;
  /// eventfd: "another thread made progress, retry now". Set in the
  /// constructor, constant until the destructor; reads and writes of an
  /// eventfd need no lock.
  int wake_fd_ = -1;
  /// What it points to is libssh2's state, used only under mu_ once shared
  /// (inside Call's op) or by the one setup thread; the pointer itself is set
  /// in the constructor and cleared in the destructor, when no other thread
  /// is left. Not BRAID_PT_GUARDED_BY: libssh2 takes it as an argument, which
  /// the analysis would not check anyway.
  LIBSSH2_SESSION* session_ = nullptr;

  Mutex mu_;
  /// A call that left a half-sent packet in libssh2 must be the one to finish
  /// it (libssh2 fails any other send with BAD_USE), so others wait their turn.
  std::condition_variable turn_;
  std::uint64_t next_token_ BRAID_GUARDED_BY(mu_) = 0;
  std::uint64_t outbound_owner_ BRAID_GUARDED_BY(mu_) = 0;  ///< token of that call; 0: none
  /// Bumped by every completed call; atomic, as WaitForProgress reads it unlocked.
  std::atomic<std::uint64_t> generation_{0};
  int waiters_ BRAID_GUARDED_BY(mu_) = 0;  ///< threads inside WaitForProgress
  Clock::time_point next_keepalive_check_ BRAID_GUARDED_BY(mu_){};
};

}  // namespace braid
