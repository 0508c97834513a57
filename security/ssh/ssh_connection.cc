#include "security/ssh/ssh_connection.h"

#include <pwd.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
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

/// The target with ~/.ssh/config applied: what Open connects to and how.
struct ResolvedTarget {
  std::string home;
  std::string local_user;
  SshHostConfig config;
  std::string hostname;
  int port = 22;
  std::string user;
  std::chrono::milliseconds timeout{30000};
  bool timeout_from_config = false;  ///< ConnectTimeout, not --connect-timeout
};

/// "1 s (ConnectTimeout in the ssh config)", for timeout messages.
std::string DescribeTimeout(const ResolvedTarget& r) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", std::chrono::duration<double>(r.timeout).count());
  return std::string(seconds) + " s" +
         (r.timeout_from_config ? " (ConnectTimeout in the ssh config)" : "");
}

ResolvedTarget Resolve(const SshTarget& target) {
  ResolvedTarget r;
  const PasswdEntry me = CurrentPasswdEntry();
  r.home = !target.home.empty() ? target.home : Getenv("HOME");
  if (r.home.empty()) r.home = me.home;
  r.local_user = !me.name.empty() ? me.name : Getenv("USER");
  r.config = LoadSshHostConfig(target.host, {r.home, r.local_user, nullptr});
  r.hostname = r.config.hostname.empty() ? target.host : r.config.hostname;
  r.port = target.port != 0 ? target.port : (r.config.port != 0 ? r.config.port : 22);
  r.user =
      !target.user.empty() ? target.user : (!r.config.user.empty() ? r.config.user : r.local_user);
  if (r.port < 1 || r.port > 65535) {
    throw BraidError(ErrorCode::kUsage, "ssh port " + std::to_string(r.port) + " for " +
                                            target.host + " is not from 1 to 65535");
  }
  if (r.user.empty()) {
    throw BraidError(ErrorCode::kUsage, "cannot tell which user to log in to " + target.host +
                                            " as; write user@" + target.host);
  }
  if (target.connect_timeout) {
    r.timeout = *target.connect_timeout;
  } else if (r.config.connect_timeout > 0) {
    r.timeout = std::chrono::seconds(r.config.connect_timeout);
    r.timeout_from_config = true;
  }
  return r;
}

/// The known_hosts files and StrictHostKeyChecking as the config sets them;
/// --accept-new-host-key wins over the config, as ssh's -o would.
HostKeyCheck MakeHostKeyCheck(const SshTarget& target, const ResolvedTarget& r) {
  using Strict = StrictHostKeyChecking;
  HostKeyCheck check;
  check.display_host = target.host;
  check.hostname = r.hostname;
  check.port = r.port;
  check.user_known_hosts =
      r.config.user_known_hosts.value_or(std::vector<std::string>{r.home + "/.ssh/known_hosts"});
  if (r.config.global_known_hosts) check.system_known_hosts = *r.config.global_known_hosts;
  if (r.config.user_known_hosts || r.config.global_known_hosts) {
    check.source = "the files the ssh config names";
  }
  const Strict strict = r.config.strict_host_key_checking;
  check.accept_new =
      target.accept_new_host_key || strict == Strict::kAcceptNew || strict == Strict::kNo;
  if (strict == Strict::kNo) {
    Say(target.note, 1,
        "StrictHostKeyChecking no for " + target.host +
            " is taken as accept-new: an unknown host key is recorded, a changed one is still "
            "refused");
  }
  check.note = target.note;
  return check;
}

/// -i first, then the config's IdentityFile; with IdentitiesOnly neither the
/// agent nor, when a key was named, the default key files.
AuthPlan MakeAuthPlan(const SshTarget& target, const ResolvedTarget& r) {
  AuthPlan plan;
  plan.display_host = target.host;
  plan.user = r.user;
  plan.home = r.home;
  plan.use_agent = !r.config.identities_only && !Getenv("SSH_AUTH_SOCK").empty();
  plan.note = target.note;
  for (const std::string& f : target.identity_files) {
    plan.identity_files.push_back(ExpandHome(f, r.home));
  }
  plan.identity_files.insert(plan.identity_files.end(), r.config.identity_files.begin(),
                             r.config.identity_files.end());
  if (r.config.identities_only && !plan.identity_files.empty()) {
    plan.only_named = true;
    return plan;
  }
  for (const char* name : {"id_ed25519", "id_ecdsa", "id_rsa"}) {
    plan.default_identity_files.push_back(r.home + "/.ssh/" + name);
  }
  return plan;
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

/// -vv: what the handshake agreed on, and who answered (the banner is the server's text).
void SayHandshake(const SshTarget& target, LIBSSH2_SESSION* raw) {
  if (!target.note) return;
  auto method = [raw](int which) {
    const char* m = libssh2_session_methods(raw, which);
    return std::string(m != nullptr ? m : "?");
  };
  const char* banner = libssh2_session_banner_get(raw);
  Say(target.note, 2,
      target.host + ": ssh handshake done with " + (banner != nullptr ? banner : "?") + " (kex " +
          method(LIBSSH2_METHOD_KEX) + ", host key " + method(LIBSSH2_METHOD_HOSTKEY) +
          ", cipher " + method(LIBSSH2_METHOD_CRYPT_CS) + ", mac " + method(LIBSSH2_METHOD_MAC_CS) +
          ")");
}

}  // namespace

SystemSshNeed NeedsSystemSsh(const SshTarget& target) {
  SystemSshNeed need;
  if (target.host.empty()) return need;
  const PasswdEntry me = CurrentPasswdEntry();
  std::string home = !target.home.empty() ? target.home : Getenv("HOME");
  if (home.empty()) home = me.home;
  const std::string local_user = !me.name.empty() ? me.name : Getenv("USER");
  need.keyword = LoadSshHostConfig(target.host, {home, local_user, nullptr}).proxy_keyword;
  const std::string config = home + "/.ssh/config";
  if (!need.keyword.empty() && home != me.home && ::access(config.c_str(), F_OK) == 0) {
    need.config_file = config;
  }
  return need;
}

std::unique_ptr<SshConnection> SshConnection::Open(const SshTarget& target) {
  if (target.host.empty()) {
    throw BraidError(ErrorCode::kUsage, "no host given for the ssh connection");
  }
  const ResolvedTarget r = Resolve(target);
  Say(target.note, 2,
      target.host + ": connecting to " + r.hostname + " port " + std::to_string(r.port) + " as " +
          r.user + " (" + DescribeTimeout(r) + " for each step)");
  const int fd = ConnectTcp(target.host, r.hostname, r.port, r.timeout);
  auto session = std::make_shared<SshSession>(target.host, fd);
  LIBSSH2_SESSION* raw = session->raw();
  libssh2_session_set_timeout(raw, static_cast<long>(r.timeout.count()));

  const HostKeyCheck check = MakeHostKeyCheck(target, r);
  PreferKnownHostKeyTypes(raw, check);
  if (const int rc = libssh2_session_handshake(raw, fd); rc != 0) {
    const bool timed_out = rc == LIBSSH2_ERROR_TIMEOUT || rc == LIBSSH2_ERROR_SOCKET_TIMEOUT;
    throw BraidError(ErrorCode::kHostUnreachable,
                     "ssh handshake with " + target.host + " (" + r.hostname + " port " +
                         std::to_string(r.port) + ") failed (" + session->LastErrorLocked() + ")" +
                         (timed_out ? ": no answer within " + DescribeTimeout(r) : "") +
                         "; check that an ssh server listens there");
  }
  SayHandshake(target, raw);
  VerifyHostKey(raw, check);
  Authenticate(raw, MakeAuthPlan(target, r));

  libssh2_session_set_timeout(raw, 0);
  session->StartSharing();
  return std::make_unique<Libssh2Connection>(std::move(session), target.host);
}

}  // namespace braid
