#pragma once
/// A remote command's stdio over one ssh channel, as a ServerChannel. Reads and
/// writes may run concurrently (one reader thread, writers on others): every
/// libssh2 call goes through the shared SshSession's lock.

#include <libssh2.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "braid/byte_stream.h"
#include "security/ssh/ssh_connection.h"
#include "security/ssh/ssh_session.h"

namespace braid {

class SshChannel : public ServerChannel {
 public:
  /// Takes ownership of `channel`, which must belong to `session`.
  SshChannel(std::shared_ptr<SshSession> session, LIBSSH2_CHANNEL* channel, std::string host,
             StderrSink on_stderr);
  ~SshChannel() override;
  SshChannel(const SshChannel&) = delete;
  SshChannel& operator=(const SshChannel&) = delete;

  /// Also hands whatever the command wrote to stderr meanwhile to the sink.
  std::size_t ReadSome(void* buf, std::size_t n) override;
  void WriteAll(const void* buf, std::size_t n) override;
  void CloseWrite() override;
  std::string host() const override { return host_; }
  /// After end of stream: closes the channel and returns the command's exit
  /// status (128 + signal number if a signal killed it). nullopt before that.
  std::optional<int> ExitStatus() override;
  std::string LocalAddress() const override;
  /// Cuts the TCP connection under the session, so a reader blocked on an
  /// unresponsive remote command returns. The session is unusable afterwards.
  void Abandon() override;

  /// Runs `command` on this (freshly opened) channel; throws BraidError.
  void Exec(const std::string& command);

 private:
  [[noreturn]] void ThrowLost(const char* during, const std::string& error) const;

  std::shared_ptr<SshSession> session_;
  LIBSSH2_CHANNEL* channel_;  ///< owned; freed (under the session lock) by the destructor
  const std::string host_;
  StderrSink on_stderr_;
  std::atomic<bool> eof_{false};
  std::atomic<bool> write_closed_{false};
  bool closed_ = false;  ///< channel closed and exit status collected
  std::optional<int> exit_status_;
};

}  // namespace braid
