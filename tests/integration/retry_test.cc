// --retry (issue 17): a copy that started and then lost its peer resumes by
// itself, without re-sending what arrived; what a retry cannot fix, and
// --retry 0, fail at once as before. The remote sink is a real braid --serve
// started through a -T wrapper that records its pid, so the test can kill it.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/background_braid.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

class RetryTest : public SshdTest {
 protected:
  RetryTest() : src(dir + "/src"), dst(dir + "/dst"), pid_file(dir + "/sink.pid") {
    WritePatternFile(src, 24u << 20, 3);
    wrapper = dir + "/recording-serve.sh";
    WriteText(wrapper, "#!/bin/sh\necho $$ > " + pid_file + "\nexec " + std::string(BRAID_BINARY) +
                           " \"$@\"\n");
    ::chmod(wrapper.c_str(), 0755);
  }

  /// Waits until the sink has journaled data (the journal's header is 56
  /// bytes; records follow), so that a retry has something to resume.
  bool JournalHasRecords(const BackgroundBraid& braid) {
    return WaitFor([&] { return FileSize(dst + ".braid-journal") > 56; }, 60) ||
           (ADD_FAILURE() << braid.err(), false);
  }

  /// Runs braid with `args` in the background and SIGKILLs its first remote
  /// sink once it has journaled data; returns braid's exit code.
  int KillTheSinkOnce(const std::vector<std::string>& args, BackgroundBraid*& out,
                      std::unique_ptr<BackgroundBraid>& holder) {
    holder = std::make_unique<BackgroundBraid>(args, dir);
    out = holder.get();
    JournalHasRecords(*holder);
    const pid_t sink = static_cast<pid_t>(std::stol(ReadWhole(pid_file)));
    EXPECT_EQ(::kill(sink, SIGKILL), 0);
    return holder->Wait(120);
  }

  std::string src, dst, pid_file, wrapper;
};

TEST_F(RetryTest, ASinkKilledMidCopyIsResumedByItself) {
  BackgroundBraid* braid = nullptr;
  std::unique_ptr<BackgroundBraid> holder;
  const int code =
      KillTheSinkOnce({"-v", "-T", wrapper, "-x", "8M", src, Remote(dst)}, braid, holder);
  ASSERT_EQ(code, 0) << braid->err();
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_EQ(Count(braid->err(), "braid: retry 1 of 3 in 1 s"), 1u) << braid->err();
  EXPECT_TRUE(Has(braid->err(), "ended unexpectedly")) << braid->err();
  EXPECT_TRUE(Has(braid->err(), "skipped by resume, after 1 retry")) << braid->err();
}

TEST_F(RetryTest, JsonListsTheRetryInOneDocument) {
  BackgroundBraid* braid = nullptr;
  std::unique_ptr<BackgroundBraid> holder;
  const int code =
      KillTheSinkOnce({"--json", "-T", wrapper, "-x", "8M", src, Remote(dst)}, braid, holder);
  ASSERT_EQ(code, 0) << braid->err();
  const std::string out = braid->out();
  EXPECT_EQ(Count(out, "\"intervals\":"), 1u) << out;
  EXPECT_TRUE(Has(out, "\"retries\": [{\"error\": ")) << out;
  EXPECT_TRUE(Has(out, "\"exit_code\": 13, \"delay_seconds\": 1.000}]")) << out;
  EXPECT_FALSE(Has(out, "\n  \"error\":")) << "the copy itself succeeded";
  EXPECT_TRUE(SameContents(src, dst));
}

TEST_F(RetryTest, RetryZeroKeepsAFailureFinal) {
  BackgroundBraid* braid = nullptr;
  std::unique_ptr<BackgroundBraid> holder;
  const int code =
      KillTheSinkOnce({"--retry", "0", "-T", wrapper, "-x", "8M", src, Remote(dst)}, braid, holder);
  EXPECT_EQ(code, 13) << braid->err();
  EXPECT_FALSE(Has(braid->err(), "retry")) << braid->err();
  EXPECT_TRUE(Has(braid->err(), "run the same command again to resume")) << braid->err();
  EXPECT_FALSE(Exists(dst));
}

TEST_F(RetryTest, AFailureBeforeTheCopyStartedIsNotRetried) {
  // No ssh server on this port (bound, never listening): refused at once.
  ProcessResult r = RunBraid({"--ssh-port", "1", src, Remote(dst)}, {}, "", 60);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_FALSE(Has(r.err, "retry")) << r.err;
}

TEST_F(RetryTest, CtrlCDuringTheWaitBeforeARetryEndsTheCopy) {
  std::unique_ptr<BackgroundBraid> braid = std::make_unique<BackgroundBraid>(
      std::vector<std::string>{"-T", wrapper, "-x", "8M", src, Remote(dst)}, dir);
  ASSERT_TRUE(JournalHasRecords(*braid));
  const pid_t sink = static_cast<pid_t>(std::stol(ReadWhole(pid_file)));
  ASSERT_EQ(::kill(sink, SIGKILL), 0);
  ASSERT_TRUE(WaitFor([&] { return Has(braid->err(), "retry 1 of 3"); }, 30)) << braid->err();
  braid->Signal(SIGINT);
  EXPECT_EQ(braid->Wait(10), 130) << braid->err();
  EXPECT_TRUE(Has(braid->err(), "interrupted by SIGINT")) << braid->err();
}

}  // namespace
}  // namespace braid::testing
