#pragma once
/// One private OpenSSH sshd on 127.0.0.1 for the whole test binary, with
/// generated host and user keys and a HOME whose ~/.ssh (config, known_hosts,
/// id_ed25519) reaches it under the alias "braidtest". Started on first use,
/// stopped (by pid) and its temp dir removed at exit.
///
///   auto& sshd = braid::testing::SshdFixture::Get();
///   RunBraid({"file", sshd.alias() + ":" + sshd.scratch_dir() + "/"});
///   SshTarget t{.host = sshd.alias(), .home = sshd.home()};
///
/// Remote commands run as the current user with PATH starting at the directory
/// of the freshly built braid, so `braid --serve` over ssh is the one under test.

#include <sys/types.h>

#include <map>
#include <mutex>
#include <string>

namespace braid::testing {

class SshdFixture {
 public:
  /// Starts sshd on first call; throws std::runtime_error with its log if it
  /// does not come up within ~10 s.
  static SshdFixture& Get();

  int port() const { return port_; }
  /// Pass as HOME to braid: .ssh/config, .ssh/known_hosts, .ssh/id_ed25519.
  const std::string& home() const { return home_; }
  /// The ~/.ssh/config Host alias for 127.0.0.1:port().
  std::string alias() const { return "braidtest"; }
  /// The user remote commands run as (the current user).
  const std::string& user() const { return user_; }
  pid_t sshd_pid() const { return sshd_pid_; }
  /// The temp dir holding everything; removed at exit.
  const std::string& root() const { return root_; }
  /// "ssh-ed25519 AAAA..." as it appears in known_hosts. sshd also has an
  /// ECDSA host key (root()/ssh_host_ecdsa_key.pub), which known_hosts omits.
  const std::string& host_public_key() const { return host_public_key_; }
  /// The test user's private key (no passphrase), also ~/.ssh/id_ed25519.
  std::string client_key() const { return home_ + "/.ssh/id_ed25519"; }

  /// A fresh empty directory for the current test (same path on later calls
  /// within one test), on the same file system as the remote side sees.
  std::string scratch_dir();
  /// A fresh directory holding a copy of home()'s .ssh, for tests that edit
  /// known_hosts, config or keys without disturbing the others. Its config
  /// names the clone's own key and known_hosts.
  std::string CloneHome();
  /// What sshd has logged so far (LogLevel ERROR).
  std::string ReadLog() const;

 private:
  SshdFixture() = default;
  void Start();
  bool TryStartOn(int port, std::string& why);
  void Stop();
  std::string NewDir(const std::string& stem);

  std::string root_;
  std::string home_;
  std::string user_;
  std::string host_public_key_;
  int port_ = 0;
  pid_t sshd_pid_ = -1;
  pid_t owner_pid_ = -1;  ///< only the process that started sshd stops it
  std::mutex mu_;         ///< guards the scratch bookkeeping below
  int next_dir_ = 0;
  std::map<std::string, std::string> scratch_by_test_;
};

}  // namespace braid::testing
