#include "source/path_filter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace braid {
namespace {

PathFilterRule Exclude(std::string pattern) { return {false, std::move(pattern)}; }
PathFilterRule Include(std::string pattern) { return {true, std::move(pattern)}; }

/// Whether one --exclude PATTERN leaves out the file (or directory) at `path`.
bool Excluded(const std::string& pattern, const std::string& path, bool is_directory = false) {
  return PathFilter({Exclude(pattern)}).Excludes(path, is_directory);
}

TEST(PathFilterTest, NoRulesExcludeNothing) {
  PathFilter filter({});
  EXPECT_TRUE(filter.empty());
  EXPECT_FALSE(filter.Excludes("run42/a.tmp", false));
}

TEST(PathFilterTest, APatternWithoutSlashMatchesTheLastNameAtAnyDepth) {
  EXPECT_TRUE(Excluded("*.tmp", "run42/a.tmp"));
  EXPECT_TRUE(Excluded("*.tmp", "run42/x/y/b.tmp"));
  EXPECT_FALSE(Excluded("*.tmp", "run42/a.tmp.keep"));
  EXPECT_FALSE(Excluded("*.tmp", "run42/x.tmp/keep"));  // a parent's name is not the last name
  EXPECT_TRUE(Excluded("core", "run42/sub/core"));
  EXPECT_FALSE(Excluded("core", "run42/sub/core2"));
  EXPECT_FALSE(Excluded("ore", "run42/sub/core"));  // the whole name, not its tail
}

TEST(PathFilterTest, StarStopsAtSlashAndDoubleStarDoesNot) {
  EXPECT_TRUE(Excluded("sub/*.o", "run42/sub/x.o"));
  EXPECT_FALSE(Excluded("sub/*.o", "run42/sub/deep/x.o"));
  EXPECT_TRUE(Excluded("sub/**.o", "run42/sub/deep/x.o"));
  EXPECT_TRUE(Excluded("sub/**", "run42/sub/deep/x.o"));
  EXPECT_TRUE(Excluded("**/cache", "run42/a/b/cache"));
}

TEST(PathFilterTest, APatternWithSlashMatchesTheEndOfThePathAtANameBoundary) {
  EXPECT_TRUE(Excluded("logs/old", "run42/logs/old"));
  EXPECT_TRUE(Excluded("logs/old", "run42/x/logs/old"));
  EXPECT_FALSE(Excluded("logs/old", "run42/mylogs/old"));
  EXPECT_FALSE(Excluded("logs/old", "run42/logs/old/file"));
}

TEST(PathFilterTest, ALeadingSlashAnchorsAtTheSourceName) {
  EXPECT_TRUE(Excluded("/run42/logs", "run42/logs"));
  EXPECT_FALSE(Excluded("/run42/logs", "run42/x/logs"));
  EXPECT_FALSE(Excluded("/logs", "run42/logs"));
  EXPECT_TRUE(Excluded("/*/logs", "run42/logs"));
}

TEST(PathFilterTest, ATrailingSlashMatchesDirectoriesOnly) {
  EXPECT_TRUE(Excluded("build/", "run42/build", true));
  EXPECT_FALSE(Excluded("build/", "run42/build", false));
  EXPECT_TRUE(Excluded("build", "run42/build", false));
}

TEST(PathFilterTest, QuestionMarkSetsAndEscapes) {
  EXPECT_TRUE(Excluded("run?.dat", "t/run7.dat"));
  EXPECT_FALSE(Excluded("run?.dat", "t/run77.dat"));
  EXPECT_TRUE(Excluded("run[0-3].dat", "t/run2.dat"));
  EXPECT_FALSE(Excluded("run[0-3].dat", "t/run5.dat"));
  EXPECT_TRUE(Excluded("run[!0-3].dat", "t/run5.dat"));
  EXPECT_TRUE(Excluded("[]x]", "t/]"));
  EXPECT_TRUE(Excluded("run[[:digit:]].dat", "t/run5.dat"));
  EXPECT_FALSE(Excluded("run[[:digit:]].dat", "t/runx.dat"));
  EXPECT_FALSE(Excluded("run[[:digit:]].dat", "t/run:]dat"));
  EXPECT_TRUE(Excluded("\\*", "t/*"));
  EXPECT_FALSE(Excluded("\\*", "t/a"));
  EXPECT_TRUE(Excluded("a[b", "t/a[b"));   // an unclosed '[' is itself
  EXPECT_FALSE(Excluded("a?b", "t/a/b"));  // '?' never matches '/'
}

TEST(PathFilterTest, TheFirstMatchingRuleDecides) {
  PathFilter keep_one({Include("keep.tmp"), Exclude("*.tmp")});
  EXPECT_FALSE(keep_one.Excludes("t/keep.tmp", false));
  EXPECT_TRUE(keep_one.Excludes("t/other.tmp", false));
  EXPECT_FALSE(keep_one.Excludes("t/data.h5", false));

  PathFilter lose_all({Exclude("*.tmp"), Include("keep.tmp")});
  EXPECT_TRUE(lose_all.Excludes("t/keep.tmp", false));
}

TEST(PathFilterTest, OnlyTheDirectoriesAndTheDataFilesIdiom) {
  PathFilter filter({Include("*/"), Include("*.h5"), Exclude("*")});
  EXPECT_FALSE(filter.Excludes("run42/day1", true));
  EXPECT_FALSE(filter.Excludes("run42/day1/a.h5", false));
  EXPECT_TRUE(filter.Excludes("run42/day1/a.log", false));
}

TEST(PathFilterTest, AnyTextIsAPatternAndALongOneStaysCheap) {
  for (const std::string& odd : {std::string(), std::string("/"), std::string("["),
                                 std::string("\\"), std::string("[!"), std::string("//**//")}) {
    PathFilter filter({Exclude(odd)});
    (void)filter.Excludes("run42/a", false);  // no crash, whatever it decides
  }
  EXPECT_FALSE(Excluded("", "run42/a"));
  // 2048 "*a" against a 4 KiB path of a's: what backtracking would take
  // forever over is a table of 16M cells here.
  std::string stars;
  while (stars.size() + 2 < kMaxFilterPatternLength) stars += "*a";
  const std::string path = "t/" + std::string(kMaxFilterPatternLength - 3, 'a') + "b";
  EXPECT_FALSE(Excluded(stars + "c", path));
  EXPECT_TRUE(Excluded(stars + "b", path));
}

}  // namespace
}  // namespace braid
