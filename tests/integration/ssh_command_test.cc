// -S/--ssh-command: the system ssh client as the control channel, against the
// fixture's real sshd. OpenSSH ignores $HOME, so every command names the
// fixture's config with -F; that config carries the key, known_hosts and
// BatchMode for the alias "braidtest".

#include <arpa/inet.h>
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "braid/error.h"
#include "launch/ssh_command_server.h"
#include "support/loopback.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::Exists;
using testing::ReadWhole;
using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::UnusedLoopbackPort;
using testing::WritePatternFile;
using testing::WriteText;

constexpr std::uint64_t kMiB = 1u << 20;

/// Children of this process that have exited but were not reaped.
int ZombieChildren() {
  int zombies = 0;
  const std::string me = std::to_string(::getpid());
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string stat = ReadWhole(entry.path().string() + "/stat");
    std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    std::string ppid;
    rest >> state >> ppid;
    if (state == "Z" && ppid == me) ++zombies;
  }
  return zombies;
}

class SshCommandTest : public testing::SshdTest {
 protected:
  std::string config = sshd.home() + "/.ssh/config";

  std::string Source(std::uint64_t size = 3 * kMiB + 12345) {
    std::string p = dir + "/src.dat";
    WritePatternFile(p, size, 17);
    return p;
  }

  /// A config entry like the fixture's for `host` (127.0.0.1:`port`), plus `extra` lines;
  /// `key` and `known_hosts` replace the fixture's files when given.
  std::string HostBlock(const std::string& host, int port, const std::string& extra = "",
                        const std::string& key = "", const std::string& known_hosts = "") const {
    return "Host " + host + "\n  HostName 127.0.0.1\n  Port " + std::to_string(port) + "\n  User " +
           sshd.user() + "\n  IdentityFile " + (key.empty() ? sshd.client_key() : key) +
           "\n  IdentitiesOnly yes\n" + "  UserKnownHostsFile " +
           (known_hosts.empty() ? sshd.home() + "/.ssh/known_hosts" : known_hosts) + "\n" +
           "  StrictHostKeyChecking yes\n  BatchMode yes\n" + extra;
  }
  std::string WriteConfig(const std::string& name, const std::string& text) const {
    std::string path = dir + "/" + name;
    WriteText(path, text);
    return path;
  }
};

TEST_F(SshCommandTest, PushAndPullThroughTheSystemSshAreByteIdentical) {
  std::string src = Source();
  // A logging wrapper in front of ssh proves braid ran it, and with what.
  std::string wrapper = dir + "/ssh-logged";
  WriteText(wrapper, "#!/bin/sh\nprintf '%s|' \"$@\" >> " + dir + "/ssh.log\necho >> " + dir +
                         "/ssh.log\nexec ssh \"$@\"\n");
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  std::string ssh_cmd = wrapper + " -F " + config;

  std::string pushed = dir + "/pushed.dat";
  auto push = RunBraid({"-S", ssh_cmd, src, Remote(pushed)});
  ASSERT_EQ(push.exit_code, 0) << push.err;
  EXPECT_TRUE(SameContents(src, pushed));

  // The pull takes -S from a config file, as any long option.
  std::string braid_config = WriteConfig("braid.conf", "ssh-command = " + ssh_cmd + "\n");
  std::string pulled = dir + "/pulled.dat";
  auto pull = RunBraid({"-C", braid_config, "-e", Remote(pushed), pulled});
  ASSERT_EQ(pull.exit_code, 0) << pull.err;
  EXPECT_TRUE(SameContents(src, pulled));

  std::string log = ReadWhole(dir + "/ssh.log");
  EXPECT_NE(log.find("-F|" + config + "|-T|-o|ServerAliveInterval=30|braidtest|braid --serve|"),
            std::string::npos)
      << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 2) << log;
}

TEST_F(SshCommandTest, IdentityUserAndPortAreHandedToSsh) {
  std::string src = Source(kMiB);
  // A config that knows the host but neither its key, user nor port.
  std::string cfg = WriteConfig(
      "bare.conf", "Host bare\n  HostName 127.0.0.1\n  IdentitiesOnly yes\n  UserKnownHostsFile " +
                       sshd.home() + "/.ssh/known_hosts\n" +
                       "  StrictHostKeyChecking yes\n  BatchMode yes\n");
  std::string dst = dir + "/bare.dat";
  auto r = RunBraid({"-S", "ssh -F " + cfg, "-i", sshd.client_key(), "--ssh-port",
                     std::to_string(sshd.port()), src, sshd.user() + "@bare:" + dst});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, dst));
}

TEST_F(SshCommandTest, ProxyJumpGoesThroughTheJumpHost) {
  std::string src = Source();
  std::string cfg =
      WriteConfig("jump.conf", HostBlock("jumpbox", sshd.port()) +
                                   HostBlock("target", sshd.port(), "  ProxyJump jumpbox\n"));
  std::string dst = dir + "/jumped.dat";
  // -v makes ssh say how it connected; braid passes ssh's stderr through.
  auto r = RunBraid({"-S", "ssh -v -F " + cfg, src, "target:" + dst});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_NE(r.err.find("ProxyCommand from ProxyJump"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(via proxy)"), std::string::npos) << r.err;

  // -J on the command line works the same way.
  std::string dst2 = dir + "/jumped2.dat";
  auto j = RunBraid({"-S", "ssh -F " + config + " -J braidtest", src, Remote(dst2)});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  EXPECT_TRUE(SameContents(src, dst2));
}

TEST_F(SshCommandTest, ControlMasterConnectionIsSharedByBothCopies) {
  std::string src = Source();
  // sun_path is short: the control socket goes in a short directory.
  char tmpl[] = "/tmp/braid-cm-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  std::string control = std::string(tmpl) + "/m";
  std::string ssh_cmd = "ssh -F " + config + " -o ControlMaster=auto -o ControlPath=" + control +
                        " -o ControlPersist=30";
  auto first = RunBraid({"-S", ssh_cmd, src, Remote(dir + "/cm1.dat")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // The master outlived the first copy; the second one rides on it.
  auto check = RunProcess(
      {"ssh", "-F", config, "-o", "ControlPath=" + control, "-O", "check", sshd.alias()});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  auto second = RunBraid({"-S", ssh_cmd, Remote(dir + "/cm1.dat"), dir + "/cm2.dat"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(SameContents(src, dir + "/cm2.dat"));
  RunProcess({"ssh", "-F", config, "-o", "ControlPath=" + control, "-O", "exit", sshd.alias()});
  std::filesystem::remove_all(tmpl);
}

TEST_F(SshCommandTest, BrokenJumpHostExit3NamesTheCause) {
  std::string src = Source(kMiB);
  std::string cfg =
      WriteConfig("badjump.conf", HostBlock("deadjump", UnusedLoopbackPort()) +
                                      HostBlock("target", sshd.port(), "  ProxyJump deadjump\n"));
  std::string dst = dir + "/never.dat";
  auto r = RunBraid({"-S", "ssh -F " + cfg, src, "target:" + dst});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostUnreachable)) << r.err;
  EXPECT_NE(r.err.find("Connection refused"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("target"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dst));
}

TEST_F(SshCommandTest, RefusedPortExit3WithSshsMessage) {
  std::string src = Source(kMiB);
  // An alias that resolves without DNS (HostName 127.0.0.1) to a closed port.
  std::string cfg = WriteConfig("closed.conf", HostBlock("closedhost", UnusedLoopbackPort()));
  auto r = RunBraid({"-S", "ssh -F " + cfg, src, "closedhost:" + dir + "/x"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostUnreachable)) << r.err;
  EXPECT_EQ(r.err.rfind("braid: ", 0), 0u) << "one line, braid's: " << r.err;
  EXPECT_NE(r.err.find("closedhost"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ssh: connect to host 127.0.0.1 port"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Connection refused"), std::string::npos) << r.err;
  // --ssh-port reaches ssh as -p and beats the config's Port.
  auto p = RunBraid({"-S", "ssh -F " + config, "--ssh-port", std::to_string(UnusedLoopbackPort()),
                     src, Remote(dir + "/y")});
  EXPECT_EQ(p.exit_code, ExitCodeFor(ErrorCode::kHostUnreachable)) << p.err;
}

TEST_F(SshCommandTest, WrongKeyExit4) {
  std::string src = Source(kMiB);
  std::string stranger = dir + "/stranger_key";
  ASSERT_EQ(RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", stranger}).exit_code,
            0);
  std::string cfg =
      WriteConfig("wrongkey.conf",
                  HostBlock("braidtest", sshd.port(), "  PasswordAuthentication no\n", stranger));
  auto r = RunBraid({"-S", "ssh -F " + cfg, src, Remote(dir + "/x")});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kAuthRefused)) << r.err;
  EXPECT_NE(r.err.find("Permission denied"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("braidtest"), std::string::npos) << r.err;
}

TEST_F(SshCommandTest, UnknownAndChangedHostKeysExit5) {
  std::string src = Source(kMiB);
  std::string empty_known = dir + "/empty_known_hosts";
  WriteText(empty_known, "");
  std::string unknown =
      WriteConfig("unknown.conf", HostBlock("braidtest", sshd.port(), "", "", empty_known));
  auto u = RunBraid({"-S", "ssh -F " + unknown, src, Remote(dir + "/x")});
  EXPECT_EQ(u.exit_code, ExitCodeFor(ErrorCode::kHostKeyUnknown)) << u.err;
  EXPECT_NE(u.err.find("Host key verification failed"), std::string::npos) << u.err;

  std::string other = dir + "/other_host_key";
  ASSERT_EQ(RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other}).exit_code, 0);
  std::string other_pub = ReadWhole(other + ".pub");
  std::string wrong_known = dir + "/wrong_known_hosts";
  WriteText(wrong_known, "[127.0.0.1]:" + std::to_string(sshd.port()) + " " +
                             other_pub.substr(0, other_pub.rfind(' ')) + "\n");
  std::string changed =
      WriteConfig("changed.conf", HostBlock("braidtest", sshd.port(), "", "", wrong_known));
  auto c = RunBraid({"-S", "ssh -F " + changed, src, Remote(dir + "/y")});
  EXPECT_EQ(c.exit_code, ExitCodeFor(ErrorCode::kHostKeyChanged)) << c.err;
  EXPECT_NE(c.err.find("SHA256:"), std::string::npos) << c.err;
}

TEST_F(SshCommandTest, MissingRemoteBraidExit6) {
  std::string src = Source(kMiB);
  auto r =
      RunBraid({"-S", "ssh -F " + config, "-T", "/nonexistent/braid", src, Remote(dir + "/x")});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kRemoteMissing)) << r.err;
  EXPECT_NE(r.err.find("-T"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("braidtest"), std::string::npos) << r.err;
}

TEST_F(SshCommandTest, MissingSshProgramIsAUsageError) {
  std::string src = Source(kMiB);
  auto r = RunBraid({"-S", "/nonexistent/ssh -F " + config, src, Remote(dir + "/x")});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage)) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/ssh"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("-S"), std::string::npos) << r.err;
}

TEST_F(SshCommandTest, AbandonAndCloseReapTheClient) {
  // Stand-ins for ssh: one that never answers, one that waits for its input to end.
  SshCommandSpec hung{"sleep 60; : ", "hung", "", 0, {}, false, "braid --serve"};
  auto start = std::chrono::steady_clock::now();
  {
    std::unique_ptr<ServerChannel> channel = SpawnSshCommand(hung, nullptr);
    channel->Abandon();
    char byte = 0;
    EXPECT_EQ(channel->ReadSome(&byte, 1), 0u);
    EXPECT_EQ(channel->ExitStatus(), 128 + SIGTERM);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  SshCommandSpec waiting{"cat >/dev/null; : ", "waiting", "", 0, {}, false, "braid --serve"};
  { std::unique_ptr<ServerChannel> channel = SpawnSshCommand(waiting, nullptr); }
  EXPECT_EQ(ZombieChildren(), 0);
}

}  // namespace
}  // namespace braid
