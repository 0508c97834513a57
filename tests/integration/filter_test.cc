// --exclude, --include and --exclude-from: what a directory SRC holds is
// copied only where the rules let it through, pushed and pulled over the
// private sshd, and the same command again leaves the target alone.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::MakeTree;
using testing::RunBraid;
using testing::RunProcess;
using testing::TreeDifferences;
using testing::TreeDirectory;
using testing::TreeFile;
using testing::TreeLink;
using testing::WriteText;

class FilterTest : public testing::SshdTest {
 protected:
  /// run42: data files, logs, a cache directory, a file that is named cache,
  /// scratch files and one scratch file to keep.
  std::string MakeRun() {
    return MakeTree(dir + "/run42", {TreeFile("day1/a.h5", 3u << 20), TreeFile("day1/a.log", 9000),
                                     TreeFile("day1/cache/blob", 70000),
                                     TreeFile("day2/c.h5", 5000), TreeFile("day2/cache", 100),
                                     TreeFile("day2/x.tmp", 100), TreeFile("keep.tmp", 100),
                                     TreeDirectory("raw/empty"), TreeLink("latest", "day2")});
  }
  /// The run as it should arrive: a copy with `gone` (paths under run42) removed.
  std::string Expected(std::initializer_list<const char*> gone) {
    const std::string expected = dir + "/expected";
    std::filesystem::create_directories(expected);
    auto cp = RunProcess({"cp", "-a", dir + "/run42", expected + "/"});
    EXPECT_EQ(cp.exit_code, 0) << cp.err;
    for (const char* path : gone) std::filesystem::remove_all(expected + "/run42/" + path);
    return expected + "/run42";
  }
};

TEST_F(FilterTest, PushedTreeLeavesOutWhatTheFirstMatchingRuleExcludes) {
  MakeRun();
  std::filesystem::create_directories(dir + "/out");
  // keep.tmp is included before *.tmp excludes it; cache/ is a directory rule,
  // so day2's file named cache stays; /run42/raw is anchored at the SRC's name.
  auto r = RunBraid({"-r", "--include", "keep.tmp", "--exclude", "*.tmp", "--exclude", "cache/",
                     "--exclude=/run42/raw", dir + "/run42", Remote(dir + "/out/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(TreeDifferences(Expected({"day1/cache", "day2/x.tmp", "raw"}), dir + "/out/run42"), "");

  // The same command again: nothing to send, the target as it was.
  auto again = RunBraid({"-r", "--include", "keep.tmp", "--exclude", "*.tmp", "--exclude", "cache/",
                         "--exclude=/run42/raw", dir + "/run42", Remote(dir + "/out/")});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(TreeDifferences(dir + "/expected/run42", dir + "/out/run42"), "");
}

TEST_F(FilterTest, PulledTreeTakesItsRulesFromAFileAndKeepsOnlyTheData) {
  MakeRun();
  WriteText(dir + "/rules", "# data only: every directory, the .h5 files\n*/\n\n*.h5\n");
  WriteText(dir + "/drop", "*\n");
  std::filesystem::create_directories(dir + "/in");
  // The source end (the remote host) does the filtering: the rules travel in SourceOpen.
  auto r = RunBraid({"-r", "--include-from", dir + "/rules", "--exclude-from", dir + "/drop",
                     Remote(dir + "/run42"), dir + "/in/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(TreeDifferences(Expected({"day1/a.log", "day1/cache/blob", "day2/cache", "day2/x.tmp",
                                      "keep.tmp", "latest"}),
                            dir + "/in/run42"),
            "");
}

TEST_F(FilterTest, ANamedSourceIsCopiedWhateverTheRulesSay) {
  MakeRun();
  std::filesystem::create_directories(dir + "/out");
  auto r = RunBraid({"--exclude", "*.tmp", dir + "/run42/keep.tmp", Remote(dir + "/out/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(testing::SameContents(dir + "/run42/keep.tmp", dir + "/out/keep.tmp"));
}

TEST_F(FilterTest, WhatARuleLeavesOutIsNotWarnedAbout) {
  MakeTree(dir + "/t", {TreeFile("a", 10), TreeLink("broken.tmp", "/nonexistent")});
  // With -L a dangling link is skipped with a warning, unless excluded.
  auto warned = RunBraid({"-r", "-L", dir + "/t", dir + "/o1"});
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("broken.tmp: dangling symbolic link"), std::string::npos);
  auto quiet = RunBraid({"-r", "-L", "--exclude", "*.tmp", dir + "/t", dir + "/o2"});
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("broken.tmp"), std::string::npos) << quiet.err;
  EXPECT_TRUE(testing::SameContents(dir + "/t/a", dir + "/o2/a"));
}

TEST_F(FilterTest, ABadRuleFileIsRefusedNamingFileAndLineBeforeAnythingStarts) {
  MakeRun();
  WriteText(dir + "/rules", "*.tmp\n/\n");
  auto r = RunBraid({"-r", "--exclude-from", dir + "/rules", dir + "/run42", Remote(dir + "/out")});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--exclude-from \"" + dir + "/rules\":2: the pattern \"/\" matches nothing"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  auto missing = RunBraid({"-r", "--exclude-from", dir + "/nope", dir + "/run42", dir + "/out"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("--exclude-from: cannot read \"" + dir + "/nope\""), std::string::npos)
      << missing.err;
}

}  // namespace
}  // namespace braid
