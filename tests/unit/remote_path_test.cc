#include "session/remote_path.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace braid {
namespace {

TEST(RemotePathTest, SplitTilde) {
  EXPECT_FALSE(SplitTilde("").has_value());
  EXPECT_FALSE(SplitTilde("/data/~x").has_value());
  EXPECT_FALSE(SplitTilde("x~").has_value());
  auto home = SplitTilde("~");
  ASSERT_TRUE(home.has_value());
  EXPECT_EQ(home->user, "");
  EXPECT_EQ(home->rest, "");
  auto in_home = SplitTilde("~/a/b");
  ASSERT_TRUE(in_home.has_value());
  EXPECT_EQ(in_home->user, "");
  EXPECT_EQ(in_home->rest, "/a/b");
  auto other = SplitTilde("~bob/x");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->user, "bob");
  EXPECT_EQ(other->rest, "/x");
}

TEST(RemotePathTest, GlobMagicIsAnUnescapedStarQuestionOrBracket) {
  for (const char* p : {"*", "run*", "/d/a?c", "x[12]", "/d/*/f", "a\\\\*"}) {
    EXPECT_TRUE(HasGlobMagic(p)) << p;
  }
  for (const char* p : {"", "plain", "/d/f.txt", "a\\*", "b\\?c", "c\\[1]", "$(touch x)", "a;b"}) {
    EXPECT_FALSE(HasGlobMagic(p)) << p;
  }
}

TEST(RemotePathTest, LastComponent) {
  EXPECT_EQ(LastComponent("/data/run*"), "run*");
  EXPECT_EQ(LastComponent("/data/run*/"), "run*");
  EXPECT_EQ(LastComponent("run*"), "run*");
  EXPECT_EQ(LastComponent("/"), "");
  EXPECT_EQ(LastComponent(""), "");
}

TEST(RemotePathTest, MatchesLastComponentAsGlobDid) {
  EXPECT_TRUE(MatchesLastComponent("/d/run*", "run1"));
  EXPECT_TRUE(MatchesLastComponent("/d/run?", "run1"));
  EXPECT_TRUE(MatchesLastComponent("/d/x[12]", "x2"));
  EXPECT_FALSE(MatchesLastComponent("/d/x[12]", "x3"));
  EXPECT_FALSE(MatchesLastComponent("/d/*", ".hidden"));
  EXPECT_TRUE(MatchesLastComponent("/d/.*", ".hidden"));
  EXPECT_FALSE(MatchesLastComponent("/d/.*", ".."));
  EXPECT_FALSE(MatchesLastComponent("/d/*", ""));
  // The name as typed, when it exists so (the source takes it literally).
  EXPECT_TRUE(MatchesLastComponent("/d/x[12]", "x[12]"));
  // Magic in a directory only: the last component must be the name itself.
  EXPECT_TRUE(MatchesLastComponent("/d/*/out", "out"));
  EXPECT_FALSE(MatchesLastComponent("/d/*/out", "other"));
}

class RemotePathFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("braid-remote-path-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Touch(const std::string& name) { std::ofstream(dir_ / name) << "x"; }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(RemotePathFilesTest, GlobMatchesSortedWithoutDots) {
  Touch("run2");
  Touch("run1");
  Touch(".run3");
  Touch("other");
  EXPECT_EQ(GlobMatches(Path("run*")), (std::vector<std::string>{Path("run1"), Path("run2")}));
  EXPECT_EQ(GlobMatches(Path(".*")), (std::vector<std::string>{Path(".run3")}));
  EXPECT_TRUE(GlobMatches(Path("none*")).empty());
}

TEST_F(RemotePathFilesTest, GlobNeverRunsAName) {
  // What a shell would run, glob(3) only matches against names.
  Touch("$(touch pwned)");
  Touch("a;touch pwned2");
  EXPECT_EQ(GlobMatches(Path("$(touch pwned)*")),
            (std::vector<std::string>{Path("$(touch pwned)")}));
  EXPECT_EQ(GlobMatches(Path("a;*")), (std::vector<std::string>{Path("a;touch pwned2")}));
  EXPECT_TRUE(GlobMatches(Path("`touch pwned3`*")).empty());
  EXPECT_TRUE(GlobMatches(Path("{a,b}*")).empty());  // no brace expansion either
  EXPECT_FALSE(std::filesystem::exists(dir_ / "pwned"));
  EXPECT_FALSE(std::filesystem::exists("pwned"));
  EXPECT_FALSE(std::filesystem::exists("pwned3"));
}

TEST(RemotePathTest, ExpandTildeUsesHomeThenThePasswdEntry) {
  const char* saved = std::getenv("HOME");
  const std::string old = saved != nullptr ? saved : "";
  ::setenv("HOME", "/home/alice", 1);
  EXPECT_EQ(ExpandTilde("~"), "/home/alice");
  EXPECT_EQ(ExpandTilde("~/x/y"), "/home/alice/x/y");
  EXPECT_EQ(ExpandTilde("/abs/~/x"), "/abs/~/x");
  EXPECT_EQ(ExpandTilde("rel"), "rel");
  ::setenv("HOME", "/", 1);
  EXPECT_EQ(ExpandTilde("~/x"), "/x");
  EXPECT_EQ(ExpandTilde("~root"), "/root");
  EXPECT_EQ(ExpandTilde("~root/f"), "/root/f");
  EXPECT_FALSE(ExpandTilde("~no-such-user-braid/x").has_value());
  if (saved != nullptr) {
    ::setenv("HOME", old.c_str(), 1);
  } else {
    ::unsetenv("HOME");
  }
}

TEST(RemotePathTest, AbsoluteForMessage) {
  char* cwd = ::getcwd(nullptr, 0);
  ASSERT_NE(cwd, nullptr);
  const std::string here = cwd;
  std::free(cwd);
  EXPECT_EQ(AbsoluteForMessage("/abs/x"), "/abs/x");
  EXPECT_EQ(AbsoluteForMessage("x"), (here == "/" ? "" : here) + "/x");
  EXPECT_EQ(AbsoluteForMessage("./x"), (here == "/" ? "" : here) + "/x");
  EXPECT_EQ(AbsoluteForMessage("."), here);
}

}  // namespace
}  // namespace braid
