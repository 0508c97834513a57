// The ssh control channel against a real OpenSSH sshd on 127.0.0.1.

#include "security/ssh/ssh_connection.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "braid/error.h"
#include "support/loopback.h"
#include "support/process_runner.h"
#include "support/ssh_open_error.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using braid::testing::ReadWhole;
using braid::testing::RunProcess;
using braid::testing::SshdFixture;
using braid::testing::UnusedLoopbackPort;
using braid::testing::WriteText;

std::string ReadAll(ByteStream& stream) {
  std::string out;
  char buf[65536];
  for (;;) {
    const std::size_t n = stream.ReadSome(buf, sizeof(buf));
    if (n == 0) {
      return out;
    }
    out.append(buf, n);
  }
}

/// Collects what the remote side wrote to stderr.
struct StderrCapture {
  std::mutex mu;
  std::string text;
  std::string host;
  StderrSink Sink() {
    return [this](const std::string& h, std::string_view t) {
      std::lock_guard<std::mutex> lock(mu);
      host = h;
      text.append(t);
    };
  }
};

/// The OpenSSH fingerprint of the fixture's host key, from ssh-keygen itself.
std::string HostKeyFingerprint() {
  const auto r = RunProcess({"ssh-keygen", "-l", "-E", "sha256", "-f",
                             SshdFixture::Get().root() + "/ssh_host_ed25519_key.pub"});
  std::istringstream in(r.out);
  std::string bits;
  std::string fp;
  in >> bits >> fp;
  return fp;
}

class SshConnectionTest : public braid::testing::SshdTest {
 protected:
  static void SetUpTestSuite() { ::unsetenv("SSH_AUTH_SOCK"); }

  SshTarget AliasTarget(const std::string& home = "") {
    SshTarget t;
    t.host = sshd.alias();
    t.home = home.empty() ? sshd.home() : home;
    return t;
  }

  /// A cloned HOME whose config names the server but no key.
  std::string HomeWithoutKeys() {
    std::string home = sshd.CloneHome();
    std::filesystem::remove(home + "/.ssh/id_ed25519");
    std::filesystem::remove(home + "/.ssh/id_ed25519.pub");
    WriteText(home + "/.ssh/config", "Host " + sshd.alias() + "\n  HostName 127.0.0.1\n  Port " +
                                         std::to_string(sshd.port()) + "\n");
    return home;
  }

  /// Expects Open to throw `code`; returns the message.
  std::string OpenError(const SshTarget& target, ErrorCode code) {
    return testing::SshOpenError(target, code);
  }
};

TEST_F(SshConnectionTest, EchoViaAlias) {
  auto conn = SshConnection::Open(AliasTarget());
  EXPECT_EQ(conn->host(), "braidtest");
  auto channel = conn->Exec("echo hello", nullptr);
  EXPECT_EQ(channel->host(), "braidtest");
  EXPECT_EQ(ReadAll(*channel), "hello\n");
  EXPECT_EQ(channel->ExitStatus(), 0);
  EXPECT_EQ(channel->LocalAddress(), "127.0.0.1");
}

TEST_F(SshConnectionTest, EchoViaLiteralAddressAndPort) {
  SshTarget t;
  t.host = "127.0.0.1";
  t.port = sshd.port();
  t.user = sshd.user();
  t.home = sshd.home();
  auto conn = SshConnection::Open(t);
  EXPECT_EQ(conn->host(), "127.0.0.1");
  auto channel = conn->Exec("echo hello", nullptr);
  EXPECT_EQ(ReadAll(*channel), "hello\n");
  EXPECT_EQ(channel->ExitStatus(), 0);
}

TEST_F(SshConnectionTest, RemoteBraidIsTheOneUnderTest) {
  auto conn = SshConnection::Open(AliasTarget());
  auto channel = conn->Exec("command -v braid", nullptr);
  EXPECT_EQ(ReadAll(*channel), std::string(BRAID_BINARY) + "\n");
}

TEST_F(SshConnectionTest, StderrReachesTheSink) {
  auto conn = SshConnection::Open(AliasTarget());
  StderrCapture err;
  auto channel = conn->Exec("echo to-stderr >&2; echo to-stdout; exit 3", err.Sink());
  EXPECT_EQ(ReadAll(*channel), "to-stdout\n");
  EXPECT_EQ(channel->ExitStatus(), 3);
  std::lock_guard<std::mutex> lock(err.mu);
  EXPECT_EQ(err.text, "to-stderr\n");
  EXPECT_EQ(err.host, "braidtest");
}

TEST_F(SshConnectionTest, StderrOnlyCommandStillEnds) {
  auto conn = SshConnection::Open(AliasTarget());
  StderrCapture err;
  auto channel = conn->Exec("for i in 1 2 3; do echo line$i >&2; sleep 0.1; done", err.Sink());
  EXPECT_EQ(ReadAll(*channel), "");
  EXPECT_EQ(channel->ExitStatus(), 0);
  std::lock_guard<std::mutex> lock(err.mu);
  EXPECT_EQ(err.text, "line1\nline2\nline3\n");
}

TEST_F(SshConnectionTest, MissingCommandExits127) {
  auto conn = SshConnection::Open(AliasTarget());
  StderrCapture err;
  auto channel = conn->Exec("braid-no-such-command-xyz", err.Sink());
  EXPECT_EQ(ReadAll(*channel), "");
  EXPECT_EQ(channel->ExitStatus(), 127);
  std::lock_guard<std::mutex> lock(err.mu);
  EXPECT_NE(err.text.find("not found"), std::string::npos) << err.text;
}

TEST_F(SshConnectionTest, ExitStatusIsUnknownBeforeEnd) {
  auto conn = SshConnection::Open(AliasTarget());
  auto channel = conn->Exec("cat", nullptr);
  EXPECT_EQ(channel->ExitStatus(), std::nullopt);
  channel->CloseWrite();
  EXPECT_EQ(ReadAll(*channel), "");
  EXPECT_EQ(channel->ExitStatus(), 0);
}

TEST_F(SshConnectionTest, ConcurrentWriterAndReaderThroughCat) {
  auto conn = SshConnection::Open(AliasTarget());
  auto channel = conn->Exec("cat", nullptr);
  std::string data(8 << 20, '\0');
  for (std::size_t i = 0; i < data.size(); ++i) {
    data[i] = static_cast<char>((i * 131) >> 3);
  }
  std::thread writer([&] {
    // Odd-sized writes from two places in turn, as control messages would be.
    std::size_t done = 0;
    std::size_t step = 1;
    while (done < data.size()) {
      const std::size_t n = std::min(step, data.size() - done);
      channel->WriteAll(data.data() + done, n);
      done += n;
      step = step * 3 % 100003 + 1;
    }
    channel->CloseWrite();
  });
  const std::string echoed = ReadAll(*channel);
  writer.join();
  EXPECT_EQ(echoed.size(), data.size());
  EXPECT_TRUE(echoed == data);
  EXPECT_EQ(channel->ExitStatus(), 0);
}

TEST_F(SshConnectionTest, PingPongLatencyIsNotPollBound) {
  // Each round trip needs the reader to notice data a writer's call may have
  // consumed from the socket; 200 rounds must not take 200 poll slices.
  auto conn = SshConnection::Open(AliasTarget());
  auto channel = conn->Exec("cat", nullptr);
  std::string got;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) {
    channel->WriteAll("x", 1);
    char c = 0;
    ASSERT_EQ(channel->ReadSome(&c, 1), 1u);
    got += c;
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(got, std::string(200, 'x'));
  EXPECT_LT(elapsed, std::chrono::seconds(8));
  channel->CloseWrite();
  EXPECT_EQ(ReadAll(*channel), "");
}

TEST_F(SshConnectionTest, ChannelOutlivesConnectionAndChannelsRunInParallel) {
  auto conn = SshConnection::Open(AliasTarget());
  auto a = conn->Exec("cat", nullptr);
  auto b = conn->Exec("echo b", nullptr);
  conn.reset();
  a->WriteAll("a\n", 2);
  a->CloseWrite();
  EXPECT_EQ(ReadAll(*b), "b\n");
  EXPECT_EQ(ReadAll(*a), "a\n");
  EXPECT_EQ(a->ExitStatus(), 0);
  EXPECT_EQ(b->ExitStatus(), 0);
}

TEST_F(SshConnectionTest, UnknownHostKeyIsRefusedWithFingerprint) {
  const std::string home = sshd.CloneHome();
  WriteText(home + "/.ssh/known_hosts", "");
  const std::string msg = OpenError(AliasTarget(home), ErrorCode::kHostKeyUnknown);
  EXPECT_NE(msg.find("SHA256:"), std::string::npos) << msg;
  EXPECT_NE(msg.find(HostKeyFingerprint()), std::string::npos) << msg;
  EXPECT_NE(msg.find("braidtest"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--accept-new-host-key"), std::string::npos) << msg;
}

TEST_F(SshConnectionTest, AcceptNewRecordsTheKeyAndTheNextConnectUsesIt) {
  const std::string home = sshd.CloneHome();
  std::filesystem::remove(home + "/.ssh/known_hosts");
  SshTarget t = AliasTarget(home);
  t.accept_new_host_key = true;
  ::testing::internal::CaptureStderr();
  auto conn = SshConnection::Open(t);
  const std::string note = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(note.find(HostKeyFingerprint()), std::string::npos) << note;
  conn.reset();

  const std::string known = ReadWhole(home + "/.ssh/known_hosts");
  EXPECT_EQ(known,
            "[127.0.0.1]:" + std::to_string(sshd.port()) + " " + sshd.host_public_key() + "\n");
  struct stat st {};
  ASSERT_EQ(::stat((home + "/.ssh/known_hosts").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);

  t.accept_new_host_key = false;
  auto again = SshConnection::Open(t);
  auto channel = again->Exec("echo ok", nullptr);
  EXPECT_EQ(ReadAll(*channel), "ok\n");
}

TEST_F(SshConnectionTest, AcceptNewCreatesTheSshDirectory) {
  const std::string home = sshd.CloneHome();
  const std::string fresh = home + "/fresh";
  std::filesystem::create_directories(fresh);
  SshTarget t;
  t.host = "127.0.0.1";
  t.port = sshd.port();
  t.home = fresh;
  t.identity_files = {sshd.client_key()};
  t.accept_new_host_key = true;
  ::testing::internal::CaptureStderr();
  auto conn = SshConnection::Open(t);
  ::testing::internal::GetCapturedStderr();
  struct stat st {};
  ASSERT_EQ(::stat((fresh + "/.ssh").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(::stat((fresh + "/.ssh/known_hosts").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(SshConnectionTest, ChangedHostKeyIsRefusedEvenWithAcceptNew) {
  const std::string home = sshd.CloneHome();
  const std::string other = home + "/other_key";
  ASSERT_EQ(RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other}).exit_code, 0);
  std::istringstream pub(ReadWhole(other + ".pub"));
  std::string type;
  std::string blob;
  pub >> type >> blob;
  const std::string known =
      "[127.0.0.1]:" + std::to_string(sshd.port()) + " " + type + " " + blob + "\n";
  WriteText(home + "/.ssh/known_hosts", known);
  SshTarget t = AliasTarget(home);
  t.accept_new_host_key = true;
  const std::string msg = OpenError(t, ErrorCode::kHostKeyChanged);
  EXPECT_NE(msg.find("CHANGED"), std::string::npos) << msg;
  EXPECT_NE(msg.find(HostKeyFingerprint()), std::string::npos) << msg;
  EXPECT_NE(msg.find(home + "/.ssh/known_hosts"), std::string::npos) << msg;
  EXPECT_NE(msg.find("will not connect"), std::string::npos) << msg;
  EXPECT_EQ(ReadWhole(home + "/.ssh/known_hosts"), known);
}

TEST_F(SshConnectionTest, HashedKnownHostsEntryMatches) {
  const std::string home = sshd.CloneHome();
  const std::string known = home + "/.ssh/known_hosts";
  ASSERT_EQ(RunProcess({"ssh-keygen", "-H", "-f", known}).exit_code, 0);
  ASSERT_EQ(ReadWhole(known).rfind("|1|", 0), 0u);
  auto conn = SshConnection::Open(AliasTarget(home));
  EXPECT_EQ(ReadAll(*conn->Exec("echo hashed", nullptr)), "hashed\n");
}

TEST_F(SshConnectionTest, KnownKeyTypeIsAskedFor) {
  // sshd has ed25519 and ECDSA keys; whichever one known_hosts holds must be used.
  const std::string home = sshd.CloneHome();
  std::istringstream pub(ReadWhole(sshd.root() + "/ssh_host_ecdsa_key.pub"));
  std::string type;
  std::string blob;
  pub >> type >> blob;
  WriteText(home + "/.ssh/known_hosts",
            "[127.0.0.1]:" + std::to_string(sshd.port()) + " " + type + " " + blob + "\n");
  auto conn = SshConnection::Open(AliasTarget(home));
  EXPECT_EQ(ReadAll(*conn->Exec("echo ecdsa", nullptr)), "ecdsa\n");
}

TEST_F(SshConnectionTest, PlainHostEntryDoesNotCoverAnotherPort) {
  // ssh keys non-22 ports as [host]:port; a bare entry for the host is not enough.
  const std::string home = sshd.CloneHome();
  WriteText(home + "/.ssh/known_hosts",
            "# comment\n@revoked * ssh-ed25519 AAAA\n"
            "127.0.0.1 " +
                sshd.host_public_key() + "\n");
  OpenError(AliasTarget(home), ErrorCode::kHostKeyUnknown);
}

TEST_F(SshConnectionTest, UnparsableKnownHostsLinesAreSkipped) {
  const std::string home = sshd.CloneHome();
  const std::string good = ReadWhole(home + "/.ssh/known_hosts");
  WriteText(home + "/.ssh/known_hosts", "garbage line\nhost sk-ssh-ed25519@openssh.com AAAA\n" +
                                            std::string(20000, 'x') + "\n" + good);
  auto conn = SshConnection::Open(AliasTarget(home));
  EXPECT_EQ(ReadAll(*conn->Exec("echo ok", nullptr)), "ok\n");
}

TEST_F(SshConnectionTest, KeyNotInAuthorizedKeysIsRefused) {
  const std::string home = HomeWithoutKeys();
  ASSERT_EQ(
      RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", home + "/.ssh/id_ed25519"})
          .exit_code,
      0);
  const std::string msg = OpenError(AliasTarget(home), ErrorCode::kAuthRefused);
  EXPECT_NE(msg.find(sshd.user() + "@braidtest"), std::string::npos) << msg;
  EXPECT_NE(msg.find("~/.ssh/id_ed25519"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-i KEY"), std::string::npos) << msg;
}

TEST_F(SshConnectionTest, NoKeysAtAllIsRefused) {
  const std::string msg = OpenError(AliasTarget(HomeWithoutKeys()), ErrorCode::kAuthRefused);
  EXPECT_NE(msg.find("no keys"), std::string::npos) << msg;
}

TEST_F(SshConnectionTest, EncryptedKeyIsSkippedAndSaid) {
  const std::string home = HomeWithoutKeys();
  ASSERT_EQ(RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "secret-pass", "-f",
                        home + "/.ssh/id_ed25519"})
                .exit_code,
            0);
  const std::string msg = OpenError(AliasTarget(home), ErrorCode::kAuthRefused);
  EXPECT_NE(msg.find("encrypted"), std::string::npos) << msg;
}

TEST_F(SshConnectionTest, IdentityFileOptionIsUsed) {
  SshTarget t = AliasTarget(HomeWithoutKeys());
  t.identity_files = {sshd.client_key()};
  auto conn = SshConnection::Open(t);
  EXPECT_EQ(ReadAll(*conn->Exec("echo ok", nullptr)), "ok\n");
}

TEST_F(SshConnectionTest, ConfigIdentityFileIsUsedWithoutPubFile) {
  const std::string home = HomeWithoutKeys();
  std::filesystem::copy_file(sshd.client_key(), home + "/only_private");
  ::chmod((home + "/only_private").c_str(), 0600);
  std::ofstream(home + "/.ssh/config", std::ios::app) << "  IdentityFile ~/only_private\n";
  auto conn = SshConnection::Open(AliasTarget(home));
  EXPECT_EQ(ReadAll(*conn->Exec("echo ok", nullptr)), "ok\n");
}

TEST_F(SshConnectionTest, AgentKeyIsUsed) {
  const std::string home = HomeWithoutKeys();
  const std::string sock = sshd.scratch_dir() + "/agent.sock";
  const auto agent = RunProcess({"ssh-agent", "-s", "-a", sock});
  ASSERT_EQ(agent.exit_code, 0) << agent.err;
  const std::size_t at = agent.out.find("SSH_AGENT_PID=");
  ASSERT_NE(at, std::string::npos) << agent.out;
  const pid_t agent_pid = std::atoi(agent.out.c_str() + at + 14);
  ASSERT_GT(agent_pid, 0);
  const auto added = RunProcess({"ssh-add", sshd.client_key()}, {{"SSH_AUTH_SOCK", sock}});
  EXPECT_EQ(added.exit_code, 0) << added.err;
  ::setenv("SSH_AUTH_SOCK", sock.c_str(), 1);
  try {
    auto conn = SshConnection::Open(AliasTarget(home));
    EXPECT_EQ(ReadAll(*conn->Exec("echo agent", nullptr)), "agent\n");
  } catch (const BraidError& e) {
    ADD_FAILURE() << e.what();
  }
  ::unsetenv("SSH_AUTH_SOCK");
  ::kill(agent_pid, SIGTERM);
}

TEST_F(SshConnectionTest, DeadAgentIsNotedAndKeysStillTried) {
  ::setenv("SSH_AUTH_SOCK", (sshd.scratch_dir() + "/no-agent.sock").c_str(), 1);
  const std::string msg = OpenError(AliasTarget(HomeWithoutKeys()), ErrorCode::kAuthRefused);
  ::unsetenv("SSH_AUTH_SOCK");
  EXPECT_NE(msg.find("ssh-agent"), std::string::npos) << msg;
  auto conn = SshConnection::Open(AliasTarget());
  EXPECT_EQ(ReadAll(*conn->Exec("echo ok", nullptr)), "ok\n");
}

TEST_F(SshConnectionTest, DroppedConnectionIsPeerLost) {
  auto conn = SshConnection::Open(AliasTarget());
  // The shell's parent is sshd's session process; killing it drops the connection.
  auto channel = conn->Exec("echo before; sleep 0.2; kill -9 $PPID; sleep 5", nullptr);
  try {
    const std::string got = ReadAll(*channel);
    // sshd may get an EOF out before it dies; then there is no exit status.
    EXPECT_EQ(got, "before\n");
    EXPECT_EQ(channel->ExitStatus(), std::nullopt);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kPeerLost) << e.what();
    EXPECT_NE(std::string(e.what()).find("braidtest"), std::string::npos) << e.what();
  }
}

TEST_F(SshConnectionTest, WrongUserIsRefused) {
  SshTarget t = AliasTarget();
  t.user = "braid-no-such-user";
  const std::string msg = OpenError(t, ErrorCode::kAuthRefused);
  EXPECT_NE(msg.find("braid-no-such-user@braidtest"), std::string::npos) << msg;
}

TEST_F(SshConnectionTest, ClosedPortIsUnreachable) {
  SshTarget t;
  t.host = "127.0.0.1";
  t.port = UnusedLoopbackPort();
  t.home = sshd.home();
  const std::string msg = OpenError(t, ErrorCode::kHostUnreachable);
  EXPECT_NE(msg.find("Connection refused"), std::string::npos) << msg;
  EXPECT_NE(msg.find("127.0.0.1 port " + std::to_string(t.port)), std::string::npos) << msg;
}

TEST_F(SshConnectionTest, NonSshServerFailsTheHandshake) {
  // A listener that accepts and says something that is not an ssh banner.
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  std::thread server([fd] {
    const int c = ::accept(fd, nullptr, nullptr);
    if (c >= 0) {
      const char junk[] = "HTTP/1.0 400 Bad Request\r\n\r\n";
      [[maybe_unused]] ssize_t n = ::write(c, junk, sizeof(junk) - 1);
      ::close(c);
    }
  });
  SshTarget t;
  t.host = "127.0.0.1";
  t.port = ntohs(addr.sin_port);
  t.home = sshd.home();
  const std::string msg = OpenError(t, ErrorCode::kHostUnreachable);
  EXPECT_NE(msg.find("handshake"), std::string::npos) << msg;
  server.join();
  ::close(fd);
}

}  // namespace
}  // namespace braid
