// Remote paths as scp reads them, over the private sshd: `host:~/x` and
// `host:x` are in the remote home, `host:'dir/run*'` is expanded by braid
// --serve there (glob(3), no shell), for pulls, pushes and third-party
// copies; a glob that matches nothing is an error naming host and pattern;
// and names that hold shell syntax are only names.

#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "braid/error.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::ReadWhole;
using testing::RunBraid;
using testing::WriteText;

/// The home sshd gives the test's user: where `braid --serve` starts.
std::string PasswdHome() {
  const passwd* pw = ::getpwuid(::getuid());
  return pw != nullptr && pw->pw_dir != nullptr ? pw->pw_dir : "";
}

class RemotePathTest : public testing::SshdTest {
 protected:
  void SetUp() override {
    home_ = PasswdHome();
    ASSERT_FALSE(home_.empty());
    // A directory of this test's own in the real home, removed afterwards.
    rel_ = ".braid-remote-path-test-" + std::to_string(::getpid()) + "-" +
           fs::path(dir).filename().string();
    in_home_ = home_ + "/" + rel_;
    fs::create_directories(in_home_);
    WriteText(in_home_ + "/a.txt", "in the home\n");
    WriteText(in_home_ + "/run1", "one\n");
    WriteText(in_home_ + "/run2", "two\n");
    WriteText(in_home_ + "/other", "not a run\n");
  }
  void TearDown() override {
    if (!in_home_.empty()) fs::remove_all(in_home_);
  }

  /// No file of that name appeared in any place a shell would have run in.
  void ExpectNothingRan(const std::string& name) const {
    for (const std::string& where : {home_, in_home_, dir, fs::current_path().string()}) {
      EXPECT_FALSE(fs::exists(where + "/" + name)) << where + "/" + name;
    }
  }

  std::string home_;
  std::string rel_;
  std::string in_home_;
};

TEST_F(RemotePathTest, TildeAndRelativePathsAreInTheRemoteHome) {
  ProcessResult r = RunBraid({"-v", Remote("~/" + rel_ + "/a.txt"), dir + "/tilde.txt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(dir + "/tilde.txt"), "in the home\n");
  // -v says where the path led.
  EXPECT_NE(r.err.find(Remote("~/" + rel_ + "/a.txt") + " is " + in_home_ + "/a.txt"),
            std::string::npos)
      << r.err;

  r = RunBraid({Remote(rel_ + "/a.txt"), dir + "/relative.txt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(dir + "/relative.txt"), "in the home\n");
}

TEST_F(RemotePathTest, PushesLandInTheRemoteHomeToo) {
  WriteText(dir + "/up.txt", "pushed\n");
  ProcessResult r = RunBraid({"-v", dir + "/up.txt", Remote("~/" + rel_ + "/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(in_home_ + "/up.txt"), "pushed\n");
  EXPECT_NE(r.err.find(" is " + in_home_ + "/"), std::string::npos) << r.err;

  r = RunBraid({dir + "/up.txt", Remote(rel_ + "/renamed.txt")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(in_home_ + "/renamed.txt"), "pushed\n");
}

TEST_F(RemotePathTest, ARemoteGlobIsExpandedThere) {
  fs::create_directories(dir + "/pulled");
  ProcessResult r = RunBraid({"-v", Remote("~/" + rel_ + "/run*"), dir + "/pulled/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(dir + "/pulled/run1"), "one\n");
  EXPECT_EQ(ReadWhole(dir + "/pulled/run2"), "two\n");
  EXPECT_FALSE(fs::exists(dir + "/pulled/other"));
  EXPECT_NE(r.err.find("run* matches 2: " + in_home_ + "/run1, " + in_home_ + "/run2"),
            std::string::npos)
      << r.err;
}

TEST_F(RemotePathTest, AGlobOfDirectoriesWithRecursiveAndThirdParty) {
  fs::create_directories(in_home_ + "/day1/sub");
  fs::create_directories(in_home_ + "/day2");
  WriteText(in_home_ + "/day1/sub/f", "f1\n");
  WriteText(in_home_ + "/day2/g", "g2\n");
  fs::create_directories(dir + "/third");
  // Both ends remote: the source's server globs, the sink's writes.
  ProcessResult r = RunBraid({"-r", Remote(rel_ + "/day?"), Remote(dir + "/third/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(dir + "/third/day1/sub/f"), "f1\n");
  EXPECT_EQ(ReadWhole(dir + "/third/day2/g"), "g2\n");
}

TEST_F(RemotePathTest, AGlobThatMatchesNothingNamesHostAndPattern) {
  ProcessResult r = RunBraid({Remote("~/" + rel_ + "/nothing*"), dir + "/x"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << r.err;
  EXPECT_NE(r.err.find(Remote("~/" + rel_ + "/nothing*") + ": no file matches this pattern"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir + "/x"));
}

TEST_F(RemotePathTest, SeveralMatchesNeedADirectory) {
  ProcessResult r = RunBraid({Remote(rel_ + "/run*"), dir + "/one-file"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable)) << r.err;
  EXPECT_NE(r.err.find("needs a target directory"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir + "/one-file"));
}

TEST_F(RemotePathTest, ShellSyntaxInANameIsOnlyAName) {
  WriteText(in_home_ + "/$(touch pwned1)", "dollar\n");
  WriteText(in_home_ + "/a;touch pwned2", "semicolon\n");
  fs::create_directories(dir + "/got");
  // Taken literally, and as part of a glob.
  ProcessResult r = RunBraid({Remote("~/" + rel_ + "/$(touch pwned1)"), dir + "/got/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(dir + "/got/$(touch pwned1)"), "dollar\n");
  r = RunBraid({Remote(rel_ + "/a;*"), dir + "/got/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(dir + "/got/a;touch pwned2"), "semicolon\n");
  // A target, and a pattern that a shell would run before it globbed.
  WriteText(dir + "/up", "up\n");
  r = RunBraid({dir + "/up", Remote(rel_ + "/`touch pwned3`;touch pwned4")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(in_home_ + "/`touch pwned3`;touch pwned4"), "up\n");
  fs::remove(dir + "/got/$(touch pwned1)");
  r = RunBraid({Remote(rel_ + "/$(touch pwned1)*"), dir + "/got/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(dir + "/got/$(touch pwned1)"), "dollar\n");
  for (const char* name : {"pwned1", "pwned2", "pwned3", "pwned4"}) {
    ExpectNothingRan(name);
  }
}

}  // namespace
}  // namespace braid
