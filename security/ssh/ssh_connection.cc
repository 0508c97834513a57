#include "security/ssh/ssh_connection.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <utility>

#include "braid/error.h"
#include "security/ssh/host_key_check.h"
#include "security/ssh/ssh_auth.h"
#include "security/ssh/ssh_channel.h"
#include "security/ssh/ssh_config.h"
#include "security/ssh/ssh_session.h"
#include "security/ssh/tcp_connect.h"

namespace braid {
namespace {

constexpr auto kExecTimeout = std::chrono::seconds(30);

/// The passwd entry of the current user; empty fields if there is none.
struct PasswdEntry {
  std::string name;
  std::string home;
};

PasswdEntry CurrentPasswdEntry() {
  passwd pw{};
  passwd* found = nullptr;
  std::string buf(16384, '\0');
  if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    return {};
  }
  return {pw.pw_name != nullptr ? pw.pw_name : "", pw.pw_dir != nullptr ? pw.pw_dir : ""};
}

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

std::string ExpandHome(const std::string& path, const std::string& home) {
  if (path == "~") {
    return home;
  }
  if (path.size() >= 2 && path[0] == '~' && path[1] == '/') {
    return home + path.substr(1);
  }
  return path;
}

class Libssh2Connection : public SshConnection {
 public:
  Libssh2Connection(std::shared_ptr<SshSession> session, std::string host)
      : session_(std::move(session)), host_(std::move(host)) {}

  std::unique_ptr<ServerChannel> Exec(const std::string& command, StderrSink on_stderr) override {
    LIBSSH2_CHANNEL* channel = nullptr;
    std::string error;
    const long rc = session_->Call(
        [&]() -> long {
          channel = libssh2_channel_open_session(session_->raw());
          return channel != nullptr ? 0 : libssh2_session_last_errno(session_->raw());
        },
        SshSession::Clock::now() + kExecTimeout, &error);
    if (rc < 0 || channel == nullptr) {
      throw BraidError(ErrorCode::kPeerLost,
                       "ssh server on " + host_ + " would not open a session channel (" + error +
                           "); if it limits sessions (MaxSessions), run fewer copies at once");
    }
    auto result = std::make_unique<SshChannel>(session_, channel, host_, std::move(on_stderr));
    result->Exec(command);
    return result;
  }

  std::string host() const override { return host_; }

 private:
  std::shared_ptr<SshSession> session_;
  const std::string host_;
};

}  // namespace

std::unique_ptr<SshConnection> SshConnection::Open(const SshTarget& target) {
  if (target.host.empty()) {
    throw BraidError(ErrorCode::kUsage, "no host given for the ssh connection");
  }
  const PasswdEntry me = CurrentPasswdEntry();
  std::string home = !target.home.empty() ? target.home : Getenv("HOME");
  if (home.empty()) {
    home = me.home;
  }
  std::string local_user = !me.name.empty() ? me.name : Getenv("USER");

  const SshHostConfig config = LoadSshHostConfig(target.host, {home, local_user});
  const std::string hostname = config.hostname.empty() ? target.host : config.hostname;
  const int port = target.port != 0 ? target.port : (config.port != 0 ? config.port : 22);
  const std::string user =
      !target.user.empty() ? target.user : (!config.user.empty() ? config.user : local_user);
  if (port < 1 || port > 65535) {
    throw BraidError(ErrorCode::kUsage, "ssh port " + std::to_string(port) + " for " + target.host +
                                            " is not from 1 to 65535");
  }
  if (user.empty()) {
    throw BraidError(ErrorCode::kUsage, "cannot tell which user to log in to " + target.host +
                                            " as; write user@" + target.host);
  }

  const int fd = ConnectTcp(target.host, hostname, port, target.connect_timeout);
  auto session = std::make_shared<SshSession>(target.host, fd);
  LIBSSH2_SESSION* raw = session->raw();
  libssh2_session_set_timeout(raw, static_cast<long>(target.connect_timeout.count()));

  HostKeyCheck check;
  check.display_host = target.host;
  check.hostname = hostname;
  check.port = port;
  check.user_known_hosts = home + "/.ssh/known_hosts";
  check.accept_new = target.accept_new_host_key;
  PreferKnownHostKeyTypes(raw, check);
  if (libssh2_session_handshake(raw, fd) != 0) {
    throw BraidError(ErrorCode::kHostUnreachable, "ssh handshake with " + target.host + " (" +
                                                      hostname + " port " + std::to_string(port) +
                                                      ") failed (" + session->LastErrorLocked() +
                                                      "); check that an ssh server listens there");
  }
  VerifyHostKey(raw, check);

  AuthPlan plan;
  plan.display_host = target.host;
  plan.user = user;
  plan.home = home;
  plan.use_agent = !Getenv("SSH_AUTH_SOCK").empty();
  for (const std::string& f : target.identity_files) {
    plan.identity_files.push_back(ExpandHome(f, home));
  }
  plan.identity_files.insert(plan.identity_files.end(), config.identity_files.begin(),
                             config.identity_files.end());
  for (const char* name : {"id_ed25519", "id_ecdsa", "id_rsa"}) {
    plan.default_identity_files.push_back(home + "/.ssh/" + name);
  }
  Authenticate(raw, plan);

  libssh2_session_set_timeout(raw, 0);
  session->StartSharing();
  return std::make_unique<Libssh2Connection>(std::move(session), target.host);
}

}  // namespace braid
