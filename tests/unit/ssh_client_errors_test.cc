// The -S failure table: ssh's exit status and stderr to braid's error classes.

#include "launch/ssh_client_errors.h"

#include <gtest/gtest.h>

#include "launch/ssh_command_server.h"

namespace braid {
namespace {

SshClientEnd End(int status, const std::string& text, bool connected = false) {
  SshClientEnd end;
  end.host = "dtn";
  end.command = "ssh -J gw";
  end.exit_status = status;
  end.stderr_text = text;
  end.connected = connected;
  return end;
}

ErrorCode CodeFor(const SshClientEnd& end) {
  std::optional<BraidError> e = DescribeSshClientEnd(end);
  return e ? e->code() : ErrorCode::kOk;
}

TEST(SshClientErrorsTest, MapsSshsOwnFailures) {
  struct Case {
    const char* text;
    ErrorCode code;
  };
  const Case cases[] = {
      {"ssh: connect to host 10.0.0.1 port 22: Connection refused\r\n",
       ErrorCode::kHostUnreachable},
      {"ssh: connect to host 10.0.0.1 port 22: Connection timed out\n",
       ErrorCode::kHostUnreachable},
      {"ssh: Could not resolve hostname nowhere: Name or service not known\n",
       ErrorCode::kHostUnreachable},
      {"kex_exchange_identification: Connection closed by remote host\n",
       ErrorCode::kHostUnreachable},
      {"alice@10.0.0.1: Permission denied (publickey,gssapi-with-mic).\n", ErrorCode::kAuthRefused},
      {"No ED25519 host key is known for dtn and you have requested strict checking.\n"
       "Host key verification failed.\n",
       ErrorCode::kHostKeyUnknown},
      {"@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
       "SHA256:abc.\nHost key verification failed.\n",
       ErrorCode::kHostKeyChanged},
      // Through a jump host: the refusal is the cause, not the closed proxy.
      {"channel 0: open failed: connect failed: Connection refused\n"
       "stdio forwarding failed\nConnection closed by UNKNOWN port 65535\n",
       ErrorCode::kHostUnreachable},
      // The jump host refuses the key: that is what to fix.
      {"alice@gw: Permission denied (publickey).\nConnection closed by UNKNOWN port 65535\n",
       ErrorCode::kAuthRefused},
      {"/home/a/.ssh/config: line 3: Bad configuration option: proxyjumpp\n", ErrorCode::kUsage},
      {"something ssh never said\n", ErrorCode::kHostUnreachable},
      {"", ErrorCode::kHostUnreachable},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(CodeFor(End(255, c.text)), c.code) << c.text;
    std::optional<BraidError> e = DescribeSshClientEnd(End(255, c.text));
    ASSERT_TRUE(e.has_value());
    EXPECT_NE(std::string(e->what()).find("dtn"), std::string::npos) << e->what();
    EXPECT_EQ(std::string(e->what()).find('\n'), std::string::npos) << e->what();
    EXPECT_EQ(std::string(e->what()).find('\r'), std::string::npos) << e->what();
  }
}

TEST(SshClientErrorsTest, RemoteStatusesAreLeftToTheCaller) {
  // 127 from the remote shell is "braid not found there": ServerEnd says so with -T advice.
  EXPECT_FALSE(DescribeSshClientEnd(End(127, "bash: braid: command not found\n")));
  EXPECT_FALSE(DescribeSshClientEnd(End(1, "")));
  EXPECT_FALSE(DescribeSshClientEnd(End(0, "")));
}

TEST(SshClientErrorsTest, LocalExecFailureIsUsage) {
  SshClientEnd end = End(127, "braid-ssh-command: 1: exec: sshh: not found\n");
  end.local_exec_failed = true;
  std::optional<BraidError> e = DescribeSshClientEnd(end);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), ErrorCode::kUsage);
  EXPECT_NE(std::string(e->what()).find("sshh: not found"), std::string::npos) << e->what();
}

TEST(SshClientErrorsTest, LostAfterConnectingIsPeerLost) {
  std::optional<BraidError> e =
      DescribeSshClientEnd(End(255, "Timeout, server dtn not responding.\r\n", true));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code(), ErrorCode::kPeerLost);
  EXPECT_NE(std::string(e->what()).find("not responding"), std::string::npos) << e->what();
  EXPECT_NE(std::string(e->what()).find("resume"), std::string::npos) << e->what();
  // Even text that would mean "refused" before: once connected it is a lost connection.
  EXPECT_EQ(CodeFor(End(255, "Connection refused\n", true)), ErrorCode::kPeerLost);
}

TEST(SshClientErrorsTest, SummaryKeepsTheLastLinesAndFingerprint) {
  EXPECT_EQ(SummarizeSshStderr("a\r\n\n  b\nc\nd\n"), "b; c; d");
  EXPECT_EQ(SummarizeSshStderr("@@@@\nkey SHA256:xyz.\n1\n2\n3\n"), "key SHA256:xyz.; 1; 2; 3");
  EXPECT_EQ(SummarizeSshStderr(""), "");
  EXPECT_LE(SummarizeSshStderr(std::string(5000, 'x')).size(), 604u);
}

TEST(SshCommandArgvTest, UserWordsThenBraidsArgumentsUnquoted) {
  SshCommandSpec spec;
  spec.command = "ssh -F '/my cfg'";
  spec.host = "dtn";
  spec.remote_command = "/opt/braid/bin/braid --serve";
  std::vector<std::string> argv = SshCommandArgv(spec);
  const std::vector<std::string> want{"/bin/sh",
                                      "-c",
                                      "exec ssh -F '/my cfg' \"$@\"",
                                      "braid-ssh-command",
                                      "-T",
                                      "-o",
                                      "ServerAliveInterval=30",
                                      "dtn",
                                      "/opt/braid/bin/braid --serve"};
  EXPECT_EQ(argv, want);

  spec.command = "ssh -o serveraliveinterval=5";  // the user's interval stands
  spec.user = "alice";
  spec.port = 2222;
  spec.identity_files = {"~/k1", "/k 2"};
  spec.accept_new_host_key = true;
  argv = SshCommandArgv(spec);
  const std::vector<std::string> want2{"/bin/sh",
                                       "-c",
                                       "exec ssh -o serveraliveinterval=5 \"$@\"",
                                       "braid-ssh-command",
                                       "-T",
                                       "-p",
                                       "2222",
                                       "-i",
                                       "~/k1",
                                       "-i",
                                       "/k 2",
                                       "-o",
                                       "StrictHostKeyChecking=accept-new",
                                       "-l",
                                       "alice",
                                       "dtn",
                                       "/opt/braid/bin/braid --serve"};
  EXPECT_EQ(argv, want2);
}

TEST(SshCommandArgvTest, LocalAddressTowardLoopback) {
  EXPECT_EQ(LocalAddressToward("127.0.0.1"), "127.0.0.1");
  EXPECT_EQ(LocalAddressToward("not-an-address"), "");
  EXPECT_EQ(LocalAddressToward(""), "");
}

}  // namespace
}  // namespace braid
