// Every failure a user can meet on the core path: one clear line naming host,
// path and cause, its documented exit code, and nothing left under the
// target's name that looks complete.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "braid/error.h"
#include "support/loopback.h"
#include "support/process_runner.h"
#include "support/scoped_tmpfs.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::Exists;
using testing::RunBraid;
using testing::RunProcess;
using testing::UnusedLoopbackPort;
using testing::WritePatternFile;

class ErrorTest : public testing::SshdTest {
 protected:
  std::string src = [this] {
    std::string p = dir + "/src.dat";
    WritePatternFile(p, 4u << 20, 5);
    return p;
  }();

  /// The error line: exactly one "braid: " line on stderr.
  static void ExpectOneLine(const std::string& err, const std::string& must_contain) {
    EXPECT_NE(err.find(must_contain), std::string::npos) << err;
    EXPECT_EQ(err.rfind("braid: ", 0), 0u) << err;
  }
  void ExpectNothingLeft(const std::string& target) {
    EXPECT_FALSE(Exists(target)) << target;
    EXPECT_FALSE(Exists(target + ".braid-part")) << target;
  }
};

bool IsRoot() { return ::geteuid() == 0; }

TEST_F(ErrorTest, UsageErrorsExit2) {
  auto one = RunBraid({src});
  EXPECT_EQ(one.exit_code, ExitCodeFor(ErrorCode::kUsage)) << one.err;
  auto streams = RunBraid({"-s", "65", src, dir + "/x"});
  EXPECT_EQ(streams.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(streams.err.find("65"), std::string::npos) << streams.err;
  ExpectNothingLeft(dir + "/x");
}

TEST_F(ErrorTest, ConnectionRefusedExit3NamesHost) {
  std::string target = dir + "/refused";
  auto r =
      RunBraid({"--ssh-port", std::to_string(UnusedLoopbackPort()), src, "127.0.0.1:" + target});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostUnreachable)) << r.err;
  ExpectOneLine(r.err, "127.0.0.1");
  EXPECT_NE(r.err.find("refused"), std::string::npos) << r.err;
  ExpectNothingLeft(target);
}

TEST_F(ErrorTest, UnknownHostExit3) {
  if (!IsRoot()) GTEST_SKIP() << "needs root for a private network namespace";
  // Inside a fresh network namespace a name lookup cannot leave the machine.
  auto r = RunProcess({"unshare", "-n", BRAID_BINARY, src, "no-such-host.invalid:/tmp/x"},
                      {{"HOME", sshd.home()}});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostUnreachable)) << r.err;
  ExpectOneLine(r.err, "no-such-host.invalid");
}

TEST_F(ErrorTest, AuthRefusedExit4) {
  std::string home = sshd.CloneHome();
  std::filesystem::remove(home + "/.ssh/id_ed25519");
  std::filesystem::remove(home + "/.ssh/id_ed25519.pub");
  RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", home + "/.ssh/id_ed25519"});
  // The fixture's config names its own key by full path; this home has only a stranger's.
  testing::WriteText(home + "/.ssh/config", "Host braidtest\n  HostName 127.0.0.1\n  Port " +
                                                std::to_string(sshd.port()) + "\n  User " +
                                                sshd.user() + "\n");
  std::string target = dir + "/auth";
  auto r = RunBraid({src, Remote(target)}, {{"HOME", home}});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kAuthRefused)) << r.err;
  ExpectOneLine(r.err, "braidtest");
  ExpectNothingLeft(target);
}

TEST_F(ErrorTest, UnknownHostKeyExit5WithFingerprint) {
  std::string home = sshd.CloneHome();
  testing::WriteText(home + "/.ssh/known_hosts", "");
  std::string target = dir + "/hostkey";
  auto r = RunBraid({src, Remote(target)}, {{"HOME", home}});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostKeyUnknown)) << r.err;
  ExpectOneLine(r.err, "SHA256:");
  EXPECT_NE(r.err.find("--accept-new-host-key"), std::string::npos) << r.err;
  ExpectNothingLeft(target);
  auto again = RunBraid({"--accept-new-host-key", src, Remote(target)}, {{"HOME", home}});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(testing::SameContents(src, target));
}

TEST_F(ErrorTest, ChangedHostKeyExit5) {
  std::string home = sshd.CloneHome();
  std::string other = home + "/other_host_key";
  RunProcess({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", other});
  std::ifstream pub(other + ".pub");
  std::string type, key;
  pub >> type >> key;
  testing::WriteText(home + "/.ssh/known_hosts",
                     "[127.0.0.1]:" + std::to_string(sshd.port()) + " " + type + " " + key + "\n");
  std::string target = dir + "/changed";
  auto r = RunBraid({"--accept-new-host-key", src, Remote(target)}, {{"HOME", home}});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostKeyChanged)) << r.err;
  ExpectOneLine(r.err, "SHA256:");
  ExpectNothingLeft(target);
}

TEST_F(ErrorTest, RemoteBraidMissingExit6SuggestsT) {
  std::string target = dir + "/missing";
  auto r = RunBraid({"-T", "/nonexistent/braid", src, Remote(target)});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kRemoteMissing)) << r.err;
  EXPECT_NE(r.err.find("-T"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("braidtest"), std::string::npos) << r.err;
  ExpectNothingLeft(target);
}

TEST_F(ErrorTest, SourceMissingExit7LocalAndRemote) {
  std::string target = dir + "/nosrc";
  auto local = RunBraid({dir + "/does-not-exist", Remote(target)});
  EXPECT_EQ(local.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << local.err;
  ExpectOneLine(local.err, dir + "/does-not-exist: No such file or directory");
  auto remote = RunBraid({Remote(dir + "/does-not-exist"), target});
  EXPECT_EQ(remote.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << remote.err;
  ExpectOneLine(remote.err, "braidtest:" + dir + "/does-not-exist: No such file or directory");
  ExpectNothingLeft(target);
}

TEST_F(ErrorTest, UnreadableSourceExit7) {
  if (IsRoot()) GTEST_SKIP() << "root reads every file";
  std::string locked = dir + "/locked";
  WritePatternFile(locked, 10, 1);
  ::chmod(locked.c_str(), 0);
  auto r = RunBraid({locked, dir + "/locked-copy"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << r.err;
  ExpectOneLine(r.err, "Permission denied");
}

TEST_F(ErrorTest, TargetDirectoryMissingExit8) {
  std::string target = dir + "/no/such/dir/file";
  auto r = RunBraid({src, Remote(target)});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable)) << r.err;
  ExpectOneLine(r.err, "braidtest:" + dir + "/no/such/dir: No such file or directory");
  ExpectNothingLeft(target);
}

/// A small file system mounted for one test and unmounted after it.
using testing::ScopedTmpfs;

TEST_F(ErrorTest, TargetNotWritableExit8) {
  if (!IsRoot()) GTEST_SKIP() << "needs root to mount a read-only file system";
  ScopedTmpfs fs(dir + "/ro", "size=1m");
  ASSERT_TRUE(fs.ok());
  fs.MakeReadOnly();
  std::string target = dir + "/ro/file";
  auto r = RunBraid({src, Remote(target)});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable)) << r.err;
  ExpectOneLine(r.err, "Read-only file system");
  ExpectNothingLeft(target);
}

TEST_F(ErrorTest, DiskFullExit9LeavesNothing) {
  if (!IsRoot()) GTEST_SKIP() << "needs root to mount a small file system";
  ScopedTmpfs fs(dir + "/small", "size=1m");
  ASSERT_TRUE(fs.ok());
  std::string target = dir + "/small/file";
  auto r = RunBraid({src, Remote(target)});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kDiskFull)) << r.err;
  ExpectOneLine(r.err, "No space left on device");
  ExpectNothingLeft(target);
  EXPECT_EQ(testing::ListDir(dir + "/small"), "");
}

TEST_F(ErrorTest, ProtocolViolationByPeerExit10) {
  // A "remote braid" that answers with a well-framed message of unknown type.
  std::string target = dir + "/garbage";
  auto r = RunBraid({"-T", "printf '\\000\\000\\000\\020garbagegarbage12'; cat >/dev/null #", src,
                     Remote(target)});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kProtocol)) << r.err;
  ExpectOneLine(r.err, "protocol error");
  ExpectNothingLeft(target);
}

TEST_F(ErrorTest, InterruptedExit130Or143LeavesNothing) {
  std::string target = dir + "/interrupted";
  std::string err_path = dir + "/interrupted.err";
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setenv("HOME", sshd.home().c_str(), 1);
    FILE* err = std::freopen(err_path.c_str(), "w", stderr);
    (void)err;
    // Endless enough: 1 TiB from /dev/zero into a file would fill the disk,
    // so the file target is remote /dev/null's neighbour: a FIFO-free sink.
    ::execl(BRAID_BINARY, "braid", "--size", "1T", "/dev/zero",
            (sshd.alias() + ":/dev/null").c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), ExitCodeFor(ErrorCode::kInterrupted));
  std::string err = testing::ReadWhole(err_path);
  EXPECT_NE(err.find("interrupted by SIGINT"), std::string::npos) << err;

  // A file target interrupted mid-copy leaves neither it nor its partial file.
  // The source is a pipe the test holds open, so the copy is surely unfinished.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(pipe_fds[0], STDIN_FILENO);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    ::setenv("HOME", sshd.home().c_str(), 1);
    ::execl(BRAID_BINARY, "braid", "-", (sshd.alias() + ":" + target).c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(pipe_fds[0]);
  std::string chunk(1u << 20, 'z');
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(::write(pipe_fds[1], chunk.data(), chunk.size()), static_cast<ssize_t>(chunk.size()));
  }
  for (int i = 0; i < 100 && !Exists(target + ".braid-part"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(Exists(target + ".braid-part")) << "the copy never started";
  ::kill(pid, SIGTERM);
  ::waitpid(pid, &status, 0);
  ::close(pipe_fds[1]);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);  // 143, as a shell reports it
  // The remote server removes its partial file as it stops; give it a moment.
  for (int i = 0; i < 100 && Exists(target + ".braid-part"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ExpectNothingLeft(target);
}

}  // namespace
}  // namespace braid
