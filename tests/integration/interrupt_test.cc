// Ctrl-C and SIGTERM end braid within seconds in every phase (issue 17):
// connecting to an ssh server that never speaks, waiting for a remote end
// that never answers, the data phase with the sink stopped, a FIFO source
// with no writer. Exit 130 for SIGINT, 143 for SIGTERM; what a re-run needs
// is kept. The bound braid keeps is 2 s; the tests assert 5 s, for a loaded
// machine, and print what they measured.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "support/background_braid.h"
#include "support/loopback.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

constexpr double kBoundSeconds = 5;  // braid's own bound is 2 s; slack for a loaded machine

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

class InterruptTest : public SshdTest {
 protected:
  /// An executable script in the scratch directory.
  std::string Script(const std::string& name, const std::string& body) {
    const std::string path = dir + "/" + name;
    WriteText(path, "#!/bin/sh\n" + body + "\n");
    ::chmod(path.c_str(), 0755);
    return path;
  }

  /// A -T command that answers nothing, ever (it ignores --serve).
  std::string SilentServe() { return Script("silent-serve.sh", "exec sleep 600"); }

  /// A -T command that is the real braid --serve, recording its pid in `pid_file`.
  std::string RecordingServe(const std::string& pid_file) {
    return Script("recording-serve.sh",
                  "echo $$ > " + pid_file + "\nexec " + std::string(BRAID_BINARY) + " \"$@\"");
  }

  struct Stopped {
    int exit_code = -1;
    double seconds = 0;
  };
  /// Sends `sig` and waits: the exit code and how long it took.
  static Stopped StopWith(BackgroundBraid& braid, int sig, const char* phase) {
    const auto start = std::chrono::steady_clock::now();
    braid.Signal(sig);
    Stopped s;
    s.exit_code = braid.Wait(60);
    s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("[ measured ] %s, %s: exit %d after %.2f s\n", phase,
                sig == SIGINT ? "SIGINT" : "SIGTERM", s.exit_code, s.seconds);
    return s;
  }
};

TEST_F(InterruptTest, WhileARemoteEndNeverAnswers) {
  WriteText(dir + "/src", "x");
  for (int sig : {SIGINT, SIGTERM}) {
    BackgroundBraid braid({"-T", SilentServe(), dir + "/src", Remote(dir + "/dst")}, dir);
    ::sleep(1);  // logged in, waiting for Hello's reply
    Stopped s = StopWith(braid, sig, "waiting for the first answer");
    EXPECT_EQ(s.exit_code, 128 + sig) << braid.err();
    EXPECT_LT(s.seconds, kBoundSeconds);
    EXPECT_TRUE(
        Has(braid.err(), sig == SIGINT ? "interrupted by SIGINT" : "interrupted by SIGTERM"))
        << braid.err();
  }
}

TEST_F(InterruptTest, ARemoteEndThatNeverAnswersIsBoundedByTheConnectTimeout) {
  // 3 s: the ssh login itself, bounded by the same timeout, must fit in it on a loaded machine.
  WriteText(dir + "/src", "x");
  ProcessResult r =
      RunBraid({"--connect-timeout", "3", "-T", SilentServe(), dir + "/src", Remote(dir + "/dst")},
               {}, "", 30);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_TRUE(Has(r.err, "did not answer within 3 s")) << r.err;
  EXPECT_TRUE(Has(r.err, "--connect-timeout")) << r.err;
  EXPECT_FALSE(Exists(dir + "/dst"));
}

TEST_F(InterruptTest, WhileTheSshServerNeverSpeaks) {
  SilentListener listener;  // the kernel completes the connect; nobody answers
  WriteText(dir + "/src", "x");
  const std::string port = std::to_string(listener.port());
  BackgroundBraid braid({"--ssh-port", port, dir + "/src", Remote(dir + "/dst")}, dir);
  ::sleep(1);  // in the ssh handshake, which libssh2 blocks in
  Stopped s = StopWith(braid, SIGINT, "ssh handshake");
  EXPECT_EQ(s.exit_code, 130) << braid.err();
  EXPECT_LT(s.seconds, kBoundSeconds);
  EXPECT_TRUE(Has(braid.err(), "interrupted by SIGINT")) << braid.err();

  ProcessResult r =
      RunBraid({"--connect-timeout", "1", "--ssh-port", port, dir + "/src", Remote(dir + "/dst")},
               {}, "", 30);
  EXPECT_EQ(r.exit_code, 3) << r.err;
}

TEST_F(InterruptTest, WithTheSinkStoppedMidCopyAndTheCopyResumesAfter) {
  const std::string src = dir + "/src";
  const std::string dst = dir + "/dst";
  WritePatternFile(src, 32u << 20, 7);
  const std::string pid_file = dir + "/sink.pid";
  const std::vector<std::string> args{"-T", RecordingServe(pid_file), "-x", "8M", src, Remote(dst)};
  {
    BackgroundBraid braid(args, dir);
    ASSERT_TRUE(WaitFor([&] { return FileSize(dst + ".braid-part") > 0; }, 30)) << braid.err();
    ::sleep(1);
    const pid_t sink = static_cast<pid_t>(std::stol(ReadWhole(pid_file)));
    ASSERT_EQ(::kill(sink, SIGSTOP), 0);  // the sink can no longer answer anything
    Stopped s = StopWith(braid, SIGINT, "data phase, sink stopped");
    ::kill(sink, SIGCONT);
    EXPECT_EQ(s.exit_code, 130) << braid.err();
    EXPECT_LT(s.seconds, kBoundSeconds);
    EXPECT_FALSE(Exists(dst)) << "nothing under the final name";
  }
  ProcessResult again = RunBraid({"-v", src, Remote(dst)});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(SameContents(src, dst));
}

TEST_F(InterruptTest, SigtermInTheDataPhaseExits143AndKeepsWhatWasCopied) {
  const std::string src = dir + "/src";
  const std::string dst = dir + "/dst";
  WritePatternFile(src, 32u << 20, 8);
  {
    BackgroundBraid braid({"-x", "8M", src, Remote(dst)}, dir);
    ASSERT_TRUE(WaitFor([&] { return FileSize(dst + ".braid-part") > 0; }, 30)) << braid.err();
    ::sleep(1);
    Stopped s = StopWith(braid, SIGTERM, "data phase");
    EXPECT_EQ(s.exit_code, 143) << braid.err();
    EXPECT_LT(s.seconds, kBoundSeconds);
    EXPECT_TRUE(Has(braid.err(), "run the same command again to resume")) << braid.err();
  }
  ProcessResult again = RunBraid({"-v", src, Remote(dst)});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Has(again.err, "skipped by resume")) << again.err;
  EXPECT_TRUE(SameContents(src, dst));
}

/// -t SEC (bbcp's -t) stops a copy as Ctrl-C does, at its time, with exit
/// 142 (128 + SIGALRM), never retried, and the same command resumes it.
TEST_F(InterruptTest, ATimeLimitStopsTheCopyResumablyAndIsNotRetried) {
  const std::string src = dir + "/src";
  const std::string dst = dir + "/dst";
  WritePatternFile(src, 32u << 20, 9);
  const auto start = std::chrono::steady_clock::now();
  ProcessResult limited = RunBraid({"-t", "1.5", "--retry", "3", "-x", "8M", src, Remote(dst)});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ measured ] -t 1.5: exit %d after %.2f s\n", limited.exit_code, seconds);
  EXPECT_EQ(limited.exit_code, 142) << limited.err;
  EXPECT_GE(seconds, 1.5);
  EXPECT_LT(seconds, 1.5 + kBoundSeconds);
  EXPECT_TRUE(Has(limited.err, "the time limit (-t) has passed")) << limited.err;
  EXPECT_FALSE(Has(limited.err, "retrying")) << limited.err;
  EXPECT_TRUE(Has(limited.err, "run the same command again to resume")) << limited.err;
  EXPECT_FALSE(Exists(dst)) << "a stopped copy must not appear under its final name";
  ProcessResult again = RunBraid({"-v", src, Remote(dst)});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(Has(again.err, "skipped by resume")) << again.err;
  EXPECT_TRUE(SameContents(src, dst));
}

TEST_F(InterruptTest, WhileAFifoSourceHasNoWriter) {
  const std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  BackgroundBraid braid({fifo, dir + "/dst"}, dir);
  ::sleep(1);  // the source blocks opening the FIFO
  Stopped s = StopWith(braid, SIGINT, "FIFO source with no writer");
  EXPECT_EQ(s.exit_code, 130) << braid.err();
  EXPECT_LT(s.seconds, kBoundSeconds);
}

/// -N: a command that never reads (or never writes) is ended with the copy,
/// and with it what it started.
TEST_F(InterruptTest, WhileACommandAtEitherEndDoesNothing) {
  WritePatternFile(dir + "/src", 64u << 20, 5);
  for (const bool at_target : {true, false}) {
    const std::string pid_file = dir + (at_target ? "/target.pid" : "/source.pid");
    const std::string command = "echo $$ > " + pid_file + "; sleep 600; echo never";
    BackgroundBraid braid(at_target
                              ? std::vector<std::string>{"-N", "o", dir + "/src", Remote(command)}
                              : std::vector<std::string>{"-N", "i", Remote(command), dir + "/dst"},
                          dir);
    for (int i = 0; i < 100 && !Exists(pid_file); ++i) ::usleep(50000);
    ASSERT_TRUE(Exists(pid_file)) << braid.err();
    ::sleep(1);  // the data phase: the target's pipe full, or the source's empty
    Stopped s = StopWith(braid, SIGINT,
                         at_target ? "-N o command not reading" : "-N i command not writing");
    EXPECT_EQ(s.exit_code, 130) << braid.err();
    EXPECT_LT(s.seconds, kBoundSeconds);
    const pid_t shell = std::stoi(ReadWhole(pid_file));
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
      gone = ::kill(-shell, 0) != 0 && errno == ESRCH;  // its whole group
      if (!gone) ::usleep(50000);
    }
    EXPECT_TRUE(gone) << "the command (process group " << shell << ") outlived the copy";
  }
}

}  // namespace
}  // namespace braid::testing
