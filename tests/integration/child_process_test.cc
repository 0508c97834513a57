// ChildProcess (src/launch): real children through /bin/sh, their exit
// statuses, their control socket and stderr pipe. No sshd.

#include "launch/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <string>

#include "braid/error.h"
#include "braid/unique_fd.h"
#include "support/byte_stream_text.h"
#include "transport/fd_byte_stream.h"

namespace braid {
namespace {

using testing::ReadToEnd;

ChildSpec Shell(const std::string& script) {
  ChildSpec spec;
  spec.what = "a test shell";
  spec.path = "/bin/sh";
  spec.argv = {"sh", "-c", script};
  return spec;
}

FdByteStream ControlOf(ChildProcess& child) {
  return FdByteStream(child.TakeControl(), {"test child read", "test child write"});
}

TEST(ChildProcessTest, ReportsTheExitCode) {
  ChildProcess child(Shell("exit 3"));
  EXPECT_EQ(child.Wait(), 3);
  EXPECT_TRUE(child.reaped());
  EXPECT_EQ(child.status(), 3);
  EXPECT_EQ(child.Wait(), 3);  // reaped once, asked twice
}

TEST(ChildProcessTest, ReportsDeathBySignalAs128PlusN) {
  ChildProcess child(Shell("kill -TERM $$; exit 0"));
  EXPECT_EQ(child.Wait(), 128 + SIGTERM);
}

TEST(ChildProcessTest, AMissingProgramExits127) {
  ChildSpec spec;
  spec.what = "a missing program";
  spec.path = "/nonexistent/braid-no-such-program";
  spec.argv = {"braid-no-such-program"};
  ChildProcess child(spec);
  EXPECT_EQ(child.Wait(), 127);
}

TEST(ChildProcessTest, IgnoresSigint) {
  // A shell cannot undo a signal ignored on entry, so it survives its own SIGINT.
  ChildProcess child(Shell("kill -INT $$; exit 5"));
  EXPECT_EQ(child.Wait(), 5);
}

TEST(ChildProcessTest, ControlSocketIsStdinAndStdout) {
  ChildProcess child(Shell("read line; printf 'got %s' \"$line\""));
  FdByteStream control = ControlOf(child);
  control.WriteAll("ping\n", 5);
  EXPECT_EQ(ReadToEnd(control), "got ping");
  EXPECT_EQ(child.Wait(), 0);
}

TEST(ChildProcessTest, ControlSocketOnAGivenDescriptor) {
  ChildSpec spec = Shell("printf 'on three' >&3; printf 'not here'");
  spec.control_fd = 3;
  ChildProcess child(spec);
  FdByteStream control = ControlOf(child);
  EXPECT_EQ(ReadToEnd(control), "on three");
  EXPECT_EQ(child.Wait(), 0);
}

TEST(ChildProcessTest, StderrToAPipeWhenAsked) {
  ChildSpec spec = Shell("echo oops >&2; exit 2");
  spec.pipe_stderr = true;
  ChildProcess child(spec);
  UniqueFd err_fd = child.TakeStderr();
  FdByteStream err(err_fd.get(), -1, {"stderr read", "stderr write"});
  EXPECT_EQ(ReadToEnd(err), "oops\n");
  EXPECT_EQ(child.Wait(), 2);
}

TEST(ChildProcessTest, NoStderrPipeUnlessAsked) {
  ChildProcess child(Shell("exit 0"));
  EXPECT_FALSE(child.TakeStderr().valid());
  EXPECT_EQ(child.Wait(), 0);
}

TEST(ChildProcessTest, TryWaitIsFalseWhileTheChildRuns) {
  // The child blocks reading its stdin until we end it, so it surely still runs.
  ChildProcess child(Shell("read line; exit 4"));
  FdByteStream control = ControlOf(child);
  EXPECT_FALSE(child.TryWait());
  EXPECT_EQ(child.status(), std::nullopt);
  control.CloseWrite();
  EXPECT_EQ(child.Wait(), 4);
  EXPECT_TRUE(child.TryWait());
}

TEST(ChildProcessTest, SignalStopsAChildAndIsHarmlessOnceReaped) {
  ChildProcess child(Shell("read line"));
  ASSERT_TRUE(child.Signal(SIGKILL));
  EXPECT_EQ(child.Wait(), 128 + SIGKILL);
  EXPECT_TRUE(child.Signal(SIGKILL));  // reaped: nothing is sent
}

TEST(ChildProcessTest, DestructorKillsAndReapsARunningChild) {
  pid_t pid = -1;
  {
    ChildProcess child(Shell("read line"));
    pid = child.pid();
  }
  // Reaped: the pid is no child of ours any more.
  EXPECT_EQ(::kill(pid, 0) == 0 ? 0 : errno, ESRCH);
}

}  // namespace
}  // namespace braid
