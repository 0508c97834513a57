#include "cli/filter_rules.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parse_args.h"
#include "temp_file.h"

namespace braid {
namespace {

using testing::TempFile;

std::vector<PathFilterRule> RulesOf(const std::vector<std::string>& args) {
  std::vector<std::string> with_operands = args;
  with_operands.insert(with_operands.end(), {"-r", "src", "dst"});
  return ParseArgs(with_operands).options.filters;
}

TEST(FilterRulesTest, NoneByDefault) { EXPECT_TRUE(RulesOf({}).empty()); }

TEST(FilterRulesTest, TheOptionsKeepTheOrderTheyWereGivenIn) {
  const std::vector<PathFilterRule> expected = {
      {true, "keep.tmp"}, {false, "*.tmp"}, {true, "*/"}, {false, "cache/"}};
  EXPECT_EQ(RulesOf({"--include", "keep.tmp", "--exclude=*.tmp", "--include", "*/", "--exclude",
                     "cache/"}),
            expected);
}

TEST(FilterRulesTest, AFilesLinesStandInItsPlace) {
  TempFile rules("# scratch\n*.tmp\n\n; and caches\ncache/\r\n", "rules");
  const std::vector<PathFilterRule> expected = {
      {true, "keep.tmp"}, {false, "*.tmp"}, {false, "cache/"}, {true, "*.h5"}};
  EXPECT_EQ(RulesOf({"--include", "keep.tmp", "--exclude-from", rules.path(), "--include", "*.h5"}),
            expected);
  TempFile includes("*.h5\n", "includes");
  EXPECT_EQ(RulesOf({"--include-from", includes.path()}),
            (std::vector<PathFilterRule>{{true, "*.h5"}}));
}

TEST(FilterRulesTest, TheConfigFilesRulesComeFirst) {
  TempFile config("exclude = *.log\n", "config");
  const std::vector<PathFilterRule> expected = {{false, "*.log"}, {true, "keep.log"}};
  EXPECT_EQ(RulesOf({"-C", config.path(), "--include", "keep.log"}), expected);
}

TEST(FilterRulesTest, PatternsThatMatchNothingAreRefusedNamingWhereTheyCameFrom) {
  EXPECT_NE(UsageErrorOf({"--exclude", "", "-r", "a", "b"}).find("--exclude: an empty pattern"),
            std::string::npos);
  EXPECT_NE(UsageErrorOf({"--include", "//", "-r", "a", "b"}).find("--include: the pattern \"//\""),
            std::string::npos);
  TempFile rules("*.tmp\n/\n", "rules");
  EXPECT_NE(
      UsageErrorOf({"--exclude-from", rules.path(), "-r", "a", "b"})
          .find("--exclude-from \"" + rules.path() + "\":2: the pattern \"/\" matches nothing"),
      std::string::npos);
  EXPECT_NE(UsageErrorOf({"--exclude", std::string(kMaxFilterPatternLength + 1, 'x'), "a", "b"})
                .find("longer than 4096 bytes"),
            std::string::npos);
  EXPECT_NE(UsageErrorOf({"--exclude-from", "", "a", "b"}).find("needs a file name"),
            std::string::npos);
}

TEST(FilterRulesTest, TooManyRulesAreRefused) {
  std::string lines;
  for (std::size_t i = 0; i <= kMaxFilterRules; ++i) lines += "f" + std::to_string(i) + "\n";
  TempFile rules(lines, "rules");
  EXPECT_NE(UsageErrorOf({"--exclude-from", rules.path(), "a", "b"}).find("more than 1024"),
            std::string::npos);
}

}  // namespace
}  // namespace braid
