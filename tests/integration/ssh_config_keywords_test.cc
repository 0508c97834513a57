// ~/.ssh/config keywords honoured by the libssh2 connection, against the
// fixture's real sshd: known_hosts files, StrictHostKeyChecking, Include,
// Match, IdentitiesOnly and ConnectTimeout, each working and failing.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "braid/error.h"
#include "security/ssh/ssh_connection.h"
#include "support/loopback.h"
#include "support/process_runner.h"
#include "support/ssh_open_error.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using braid::testing::ReadWhole;
using braid::testing::RunBraid;
using braid::testing::RunProcess;
using braid::testing::SameContents;
using braid::testing::SilentListener;
using braid::testing::WritePatternFile;
using braid::testing::WriteText;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class SshConfigKeywordsTest : public braid::testing::SshdTest {
 protected:
  static void SetUpTestSuite() { ::unsetenv("SSH_AUTH_SOCK"); }

  /// A cloned HOME whose ~/.ssh/config holds the alias block plus `extra`
  /// lines inside it, then `after` (further blocks). No UserKnownHostsFile,
  /// StrictHostKeyChecking or IdentitiesOnly unless a test adds them.
  std::string Home(const std::string& extra, const std::string& after = "") {
    const std::string home = sshd.CloneHome();
    WriteText(home + "/.ssh/config", "Host " + sshd.alias() + "\n  HostName 127.0.0.1\n  Port " +
                                         std::to_string(sshd.port()) + "\n" + extra + after);
    return home;
  }

  /// Moves the clone's known_hosts to `home`/`name`, so only a config that
  /// names it finds the key.
  static std::string MoveKnownHosts(const std::string& home, const std::string& name) {
    std::filesystem::create_directories(std::filesystem::path(home + "/" + name).parent_path());
    std::filesystem::rename(home + "/.ssh/known_hosts", home + "/" + name);
    return home + "/" + name;
  }

  SshTarget Target(const std::string& home) {
    SshTarget t;
    t.host = sshd.alias();
    t.home = home;
    return t;
  }

  /// Opens and runs `echo ok`: the connection really works.
  void ExpectWorks(const SshTarget& t) {
    try {
      auto conn = SshConnection::Open(t);
      auto channel = conn->Exec("echo ok", nullptr);
      std::string out;
      char buf[256];
      for (std::size_t n; (n = channel->ReadSome(buf, sizeof buf)) > 0;) out.append(buf, n);
      EXPECT_EQ(out, "ok\n");
    } catch (const BraidError& e) {
      ADD_FAILURE() << e.what();
    }
  }

  /// Expects Open to throw `code`; returns the message.
  std::string OpenError(const SshTarget& t, ErrorCode code) {
    return testing::SshOpenError(t, code);
  }

  /// A known_hosts line for the fixture's address with a stranger's key.
  std::string StrangerKnownHosts(const std::string& home) {
    const std::string other = home + "/stranger_key";
    EXPECT_EQ(RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other}).exit_code,
              0);
    std::istringstream pub(ReadWhole(other + ".pub"));
    std::string type;
    std::string blob;
    pub >> type >> blob;
    return "[127.0.0.1]:" + std::to_string(sshd.port()) + " " + type + " " + blob + "\n";
  }

  std::string Known() const {
    return "[127.0.0.1]:" + std::to_string(sshd.port()) + " " + sshd.host_public_key() + "\n";
  }
};

TEST_F(SshConfigKeywordsTest, UserKnownHostsFileElsewhereIsUsed) {
  const std::string home = Home("  UserKnownHostsFile ~/elsewhere/kh_%h\n");
  MoveKnownHosts(home, "elsewhere/kh_127.0.0.1");
  ExpectWorks(Target(home));
}

TEST_F(SshConfigKeywordsTest, UserKnownHostsFileSeveralFilesAreAllRead) {
  const std::string home = Home("  UserKnownHostsFile ~/first ~/second\n");
  WriteText(home + "/first", "# nothing for this host\n");
  MoveKnownHosts(home, "second");
  ExpectWorks(Target(home));
}

TEST_F(SshConfigKeywordsTest, KeyMissingFromTheConfiguredFileFailsNamingIt) {
  // ~/.ssh/known_hosts still holds the key, but the config says to look elsewhere.
  const std::string home = Home("  UserKnownHostsFile ~/empty_kh\n");
  WriteText(home + "/empty_kh", "");
  const std::string msg = OpenError(Target(home), ErrorCode::kHostKeyUnknown);
  EXPECT_TRUE(Has(msg, home + "/empty_kh")) << msg;
  EXPECT_FALSE(Has(msg, home + "/.ssh/known_hosts")) << msg;

  const std::string src = dir + "/src";
  WritePatternFile(src, 1000, 7);
  const auto r = RunBraid({src, Remote(dir + "/dst")}, {{"HOME", home}});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostKeyUnknown)) << r.err;
  EXPECT_TRUE(Has(r.err, home + "/empty_kh")) << r.err;
}

TEST_F(SshConfigKeywordsTest, UserKnownHostsFileNoneFindsNoKey) {
  const std::string home = Home("  UserKnownHostsFile none\n  GlobalKnownHostsFile none\n");
  const std::string msg = OpenError(Target(home), ErrorCode::kHostKeyUnknown);
  EXPECT_TRUE(Has(msg, "none")) << msg;
}

TEST_F(SshConfigKeywordsTest, AcceptNewWithUserKnownHostsFileNoneRecordsNothing) {
  const std::string home = Home(
      "  UserKnownHostsFile none\n  GlobalKnownHostsFile none\n"
      "  StrictHostKeyChecking accept-new\n");
  const std::string before = ReadWhole(home + "/.ssh/known_hosts");
  ::testing::internal::CaptureStderr();
  ExpectWorks(Target(home));
  const std::string note = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(Has(note, "without recording it")) << note;
  EXPECT_EQ(ReadWhole(home + "/.ssh/known_hosts"), before);
}

TEST_F(SshConfigKeywordsTest, GlobalKnownHostsFileIsUsed) {
  const std::string home = Home("  GlobalKnownHostsFile ~/global_a ~/global_b\n");
  MoveKnownHosts(home, "global_b");
  ExpectWorks(Target(home));
}

TEST_F(SshConfigKeywordsTest, ChangedKeyInGlobalKnownHostsFileIsRefused) {
  const std::string home = Home("  GlobalKnownHostsFile ~/global\n  StrictHostKeyChecking no\n");
  WriteText(home + "/.ssh/known_hosts", "");
  WriteText(home + "/global", StrangerKnownHosts(home));
  const std::string msg = OpenError(Target(home), ErrorCode::kHostKeyChanged);
  EXPECT_TRUE(Has(msg, home + "/global")) << msg;
  EXPECT_EQ(ReadWhole(home + "/.ssh/known_hosts"), "");
}

TEST_F(SshConfigKeywordsTest, StrictAcceptNewRecordsInTheConfiguredFile) {
  const std::string home = Home(
      "  UserKnownHostsFile ~/kh/recorded\n"
      "  StrictHostKeyChecking accept-new\n");
  ::testing::internal::CaptureStderr();
  ExpectWorks(Target(home));
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ReadWhole(home + "/kh/recorded"), Known());
  ExpectWorks(Target(home));  // and the next connect finds it there
}

TEST_F(SshConfigKeywordsTest, StrictYesRefusesAnUnknownKey) {
  const std::string home = Home("  StrictHostKeyChecking yes\n");
  WriteText(home + "/.ssh/known_hosts", "");
  OpenError(Target(home), ErrorCode::kHostKeyUnknown);
  EXPECT_EQ(ReadWhole(home + "/.ssh/known_hosts"), "");
  // The command line's --accept-new-host-key wins, as ssh -o would.
  SshTarget t = Target(home);
  t.accept_new_host_key = true;
  ::testing::internal::CaptureStderr();
  ExpectWorks(t);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ReadWhole(home + "/.ssh/known_hosts"), Known());
}

TEST_F(SshConfigKeywordsTest, StrictNoIsAcceptNewAndSaysSoUnderVerbose) {
  const std::string home = Home("  StrictHostKeyChecking no\n");
  std::filesystem::remove(home + "/.ssh/known_hosts");
  SshTarget t = Target(home);
  t.verbose = 1;
  std::string note;  // what -v would print: the launcher hands braid's console in here
  t.note = [&note](int level, const std::string& text) {
    if (level <= 1) note += text + "\n";
  };
  ExpectWorks(t);
  EXPECT_TRUE(Has(note, "StrictHostKeyChecking no")) << note;
  EXPECT_TRUE(Has(note, "accept-new")) << note;
  EXPECT_EQ(ReadWhole(home + "/.ssh/known_hosts"), Known());
}

TEST_F(SshConfigKeywordsTest, StrictNoStillRefusesAChangedKey) {
  const std::string home = Home("  StrictHostKeyChecking no\n");
  const std::string stranger = StrangerKnownHosts(home);
  WriteText(home + "/.ssh/known_hosts", stranger);
  const std::string msg = OpenError(Target(home), ErrorCode::kHostKeyChanged);
  EXPECT_TRUE(Has(msg, "CHANGED")) << msg;
  EXPECT_EQ(ReadWhole(home + "/.ssh/known_hosts"), stranger);
}

TEST_F(SshConfigKeywordsTest, StrictNoThroughBraidSaysSoUnderVerbose) {
  const std::string home = Home("  StrictHostKeyChecking no\n");
  std::filesystem::remove(home + "/.ssh/known_hosts");
  const std::string src = dir + "/src";
  WritePatternFile(src, 1000, 7);
  const auto r = RunBraid({"-v", src, Remote(dir + "/dst")}, {{"HOME", home}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "StrictHostKeyChecking no")) << r.err;
  EXPECT_TRUE(SameContents(src, dir + "/dst"));
}

TEST_F(SshConfigKeywordsTest, IncludeReadsGlobbedFilesRelativeToDotSsh) {
  const std::string home = sshd.CloneHome();
  std::filesystem::create_directories(home + "/.ssh/conf.d");
  std::filesystem::rename(home + "/.ssh/config", home + "/.ssh/conf.d/50-braidtest.conf");
  WriteText(home + "/.ssh/config", "Include conf.d/*.conf\n");
  ExpectWorks(Target(home));
}

TEST_F(SshConfigKeywordsTest, IncludeLoopIsAUsageErrorNamingTheFile) {
  const std::string home = Home("  Include ~/.ssh/loop\n");
  WriteText(home + "/.ssh/loop", "Include loop\n");
  const std::string msg = OpenError(Target(home), ErrorCode::kUsage);
  EXPECT_TRUE(Has(msg, home + "/.ssh/loop")) << msg;
}

TEST_F(SshConfigKeywordsTest, MatchHostAppliesToTheHostName) {
  const std::string home = Home("", "Match host 127.0.0.1\n  UserKnownHostsFile ~/matched\n");
  MoveKnownHosts(home, "matched");
  ExpectWorks(Target(home));
}

TEST_F(SshConfigKeywordsTest, MatchHostForAnotherHostDoesNotApply) {
  const std::string home = Home("", "Match host 10.*\n  UserKnownHostsFile ~/matched\n");
  MoveKnownHosts(home, "matched");
  const std::string msg = OpenError(Target(home), ErrorCode::kHostKeyUnknown);
  EXPECT_TRUE(Has(msg, home + "/.ssh/known_hosts")) << msg;
}

TEST_F(SshConfigKeywordsTest, MatchAllApplies) {
  const std::string home = Home("", "Match all\n  UserKnownHostsFile ~/all\n");
  MoveKnownHosts(home, "all");
  ExpectWorks(Target(home));
}

TEST_F(SshConfigKeywordsTest, MatchWithAnotherCriterionDoesNotApply) {
  const std::string home =
      Home("", "Match host 127.0.0.1 user " + sshd.user() + "\n  UserKnownHostsFile ~/m\n");
  MoveKnownHosts(home, "m");
  OpenError(Target(home), ErrorCode::kHostKeyUnknown);
}

/// A home whose default key (~/.ssh/id_ed25519) is the one the server takes,
/// plus a stranger's key at ~/wrong_key.
std::string WithWrongKey(const std::string& home) {
  EXPECT_EQ(RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", home + "/wrong_key"})
                .exit_code,
            0);
  return home + "/wrong_key";
}

TEST_F(SshConfigKeywordsTest, IdentitiesOnlyUsesTheNamedKey) {
  const std::string home = Home("  IdentityFile ~/good_key\n  IdentitiesOnly yes\n");
  std::filesystem::rename(home + "/.ssh/id_ed25519", home + "/good_key");
  WithWrongKey(home);
  std::filesystem::copy_file(home + "/wrong_key", home + "/.ssh/id_ed25519");
  ExpectWorks(Target(home));
}

TEST_F(SshConfigKeywordsTest, IdentitiesOnlySkipsTheDefaultKeys) {
  const std::string with = Home("  IdentityFile ~/wrong_key\n  IdentitiesOnly yes\n");
  WithWrongKey(with);
  const std::string msg = OpenError(Target(with), ErrorCode::kAuthRefused);
  EXPECT_TRUE(Has(msg, "~/wrong_key")) << msg;
  EXPECT_TRUE(Has(msg, "IdentitiesOnly")) << msg;
  EXPECT_FALSE(Has(msg, "id_ed25519")) << msg;
  // Without IdentitiesOnly the default key is tried after it, and works.
  const std::string without = Home("  IdentityFile ~/wrong_key\n");
  WithWrongKey(without);
  ExpectWorks(Target(without));
}

TEST_F(SshConfigKeywordsTest, IdentitiesOnlyLeavesTheAgentOut) {
  // The agent holds the key the server takes; the named key is a stranger's.
  const std::string home = Home("  IdentityFile ~/wrong_key\n  IdentitiesOnly yes\n");
  WithWrongKey(home);
  std::filesystem::rename(home + "/.ssh/id_ed25519", home + "/agent_key");
  std::filesystem::remove(home + "/.ssh/id_ed25519.pub");
  const std::string sock = dir + "/agent.sock";
  const auto agent = RunProcess({"ssh-agent", "-s", "-a", sock});
  ASSERT_EQ(agent.exit_code, 0) << agent.err;
  const std::size_t at = agent.out.find("SSH_AGENT_PID=");
  ASSERT_NE(at, std::string::npos) << agent.out;
  const pid_t agent_pid = std::atoi(agent.out.c_str() + at + 14);
  ASSERT_GT(agent_pid, 0);
  EXPECT_EQ(RunProcess({"ssh-add", home + "/agent_key"}, {{"SSH_AUTH_SOCK", sock}}).exit_code, 0);
  ::setenv("SSH_AUTH_SOCK", sock.c_str(), 1);
  const std::string msg = OpenError(Target(home), ErrorCode::kAuthRefused);
  EXPECT_FALSE(Has(msg, "ssh-agent")) << msg;
  EXPECT_TRUE(Has(msg, "IdentitiesOnly")) << msg;
  // Without IdentitiesOnly the agent's key is offered, and works.
  const std::string without = Home("  IdentityFile ~/wrong_key\n");
  WithWrongKey(without);
  std::filesystem::remove(without + "/.ssh/id_ed25519");
  ExpectWorks(Target(without));
  ::unsetenv("SSH_AUTH_SOCK");
  ::kill(agent_pid, SIGTERM);
}

TEST_F(SshConfigKeywordsTest, ConnectTimeoutBoundsTheHandshake) {
  SilentListener silent;
  const std::string home = sshd.CloneHome();
  WriteText(home + "/.ssh/config", "Host silent\n  HostName 127.0.0.1\n  Port " +
                                       std::to_string(silent.port()) + "\n  ConnectTimeout 1\n");
  SshTarget t = Target(home);
  t.host = "silent";
  const std::string msg = OpenError(t, ErrorCode::kHostUnreachable);
  EXPECT_TRUE(Has(msg, "within 1 s (ConnectTimeout")) << msg;

  // --connect-timeout on the command line wins over the config.
  t.connect_timeout = std::chrono::seconds(2);
  const std::string given = OpenError(t, ErrorCode::kHostUnreachable);
  EXPECT_TRUE(Has(given, "within 2 s")) << given;
  EXPECT_FALSE(Has(given, "ConnectTimeout")) << given;
}

TEST_F(SshConfigKeywordsTest, ConnectTimeoutThroughBraidExits3) {
  SilentListener silent;
  const std::string home = sshd.CloneHome();
  WriteText(home + "/.ssh/config", "Host silent\n  HostName 127.0.0.1\n  Port " +
                                       std::to_string(silent.port()) + "\n  ConnectTimeout 1\n");
  const std::string src = dir + "/src";
  WritePatternFile(src, 1000, 7);
  const auto r = RunBraid({src, "silent:" + dir + "/dst"}, {{"HOME", home}});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostUnreachable)) << r.err;
  EXPECT_TRUE(Has(r.err, "within 1 s (ConnectTimeout")) << r.err;
}

TEST_F(SshConfigKeywordsTest, ConnectTimeoutWithAnAnsweringServerWorks) {
  ExpectWorks(Target(Home("  ConnectTimeout 5\n")));
}

TEST_F(SshConfigKeywordsTest, BadConnectTimeoutIsAUsageErrorNamingTheLine) {
  const std::string home = Home("  ConnectTimeout soon\n");
  const std::string msg = OpenError(Target(home), ErrorCode::kUsage);
  EXPECT_TRUE(Has(msg, home + "/.ssh/config line 4")) << msg;
}

/// The fixture's config plus an alias reached through ProxyJump braidtest.
std::string JumpHome(braid::testing::SshdFixture& sshd, const std::string& jump_to) {
  const std::string home = sshd.CloneHome();
  const std::string config = ReadWhole(home + "/.ssh/config");
  WriteText(home + "/.ssh/config",
            "Host viajump\n  HostName 127.0.0.1\n  Port " + std::to_string(sshd.port()) +
                "\n  ProxyJump " + jump_to + "\n  User " + sshd.user() + "\n  IdentityFile " +
                home + "/.ssh/id_ed25519\n  UserKnownHostsFile " + home +
                "/.ssh/known_hosts\n  StrictHostKeyChecking yes\n  BatchMode yes\n" + config +
                "Host deadjump\n  HostName 127.0.0.1\n  Port " +
                std::to_string(braid::testing::UnusedLoopbackPort()) + "\n");
  return home;
}

TEST_F(SshConfigKeywordsTest, ProxyJumpUsesTheSystemSshAndSaysSo) {
  const std::string home = JumpHome(sshd, sshd.alias());
  const std::string src = dir + "/src";
  WritePatternFile(src, 100000, 3);
  const auto r = RunBraid({"-v", src, "viajump:" + dir + "/dst"}, {{"HOME", home}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Has(r.err, "ProxyJump") && Has(r.err, "system ssh")) << r.err;
  EXPECT_TRUE(SameContents(src, dir + "/dst"));
}

TEST_F(SshConfigKeywordsTest, ProxyJumpToADeadHostFailsAsUnreachable) {
  const std::string home = JumpHome(sshd, "deadjump");
  const std::string src = dir + "/src";
  WritePatternFile(src, 1000, 3);
  const auto r = RunBraid({src, "viajump:" + dir + "/dst"}, {{"HOME", home}});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostUnreachable)) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/dst"));
}

}  // namespace
}  // namespace braid
