// -I FILE and --files0-from FILE: sources listed in a file (cli/list_file)
// and where they go among the operands.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/error.h"
#include "cli/list_file.h"
#include "parse_args.h"
#include "temp_file.h"

namespace braid {
namespace {

using testing::TempFile;
using namespace std::string_literals;

TEST(ListedSourcesTest, LinesAsRsyncsFilesFromReadsThem) {
  const std::vector<std::string> got =
      ParseSourceList("# made by find\na\n\n;old\nb with blanks \r\nh:/c\nlast", false, "L");
  EXPECT_EQ(got, (std::vector<std::string>{"a", "b with blanks ", "h:/c", "last"}));
}

TEST(ListedSourcesTest, NulSeparatedNamesKeepEverythingButEmptyOnes) {
  const std::string text = "#not a comment\0line\nbreak\0\0;x\0"s;
  const std::vector<std::string> got = ParseSourceList(text, true, "L");
  EXPECT_EQ(got, (std::vector<std::string>{"#not a comment", "line\nbreak", ";x"}));
}

TEST(ListedSourcesTest, StdinCannotBeListedAndTheLineIsNamed) {
  try {
    ParseSourceList("a\n-\n", false, "list.txt");
    ADD_FAILURE() << "no error";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("list.txt:2: "), std::string::npos) << e.what();
  }
}

TEST(ListedSourcesTest, AListUpToItsBoundIsReadAndOnePastItRefused) {
  constexpr std::size_t kBound = std::size_t{1} << 20;
  TempFile fits(std::string(kBound, 'a'));
  EXPECT_EQ(ReadListFile(fits.path(), "-I", kBound).size(), kBound);
  TempFile over(std::string(kBound + 1, 'a'));
  try {
    ReadListFile(over.path(), "-I", kBound);
    ADD_FAILURE() << "no error";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("is larger than 1 MiB"), std::string::npos) << e.what();
  }
}

TEST(ListedSourcesTest, ListedSourcesComeBeforeTheOperands) {
  TempFile list("/data/a\nh2:/b\n");
  TempFile nul("/x\0/y\0"s);
  const Options o =
      ParseArgs({"-I", list.path(), "--files0-from", nul.path(), "/c", "dtn:/d/"}).options;
  ASSERT_EQ(o.sources.size(), 5u);
  EXPECT_EQ(o.sources[0].path, "/data/a");
  EXPECT_EQ(o.sources[1].host, "h2");
  EXPECT_EQ(o.sources[2].path, "/x");
  EXPECT_EQ(o.sources[3].path, "/y");
  EXPECT_EQ(o.sources[4].path, "/c");
  EXPECT_EQ(o.destination.host, "dtn");
}

TEST(ListedSourcesTest, WithToEveryOperandMayBeGone) {
  TempFile list("a\nb\n");
  const Options o = ParseArgs({"-I", list.path(), "--to", "d1:/x", "--to", "d2:/x"}).options;
  EXPECT_EQ(o.sources.size(), 2u);
  EXPECT_EQ(o.destinations.size(), 2u);
}

TEST(ListedSourcesTest, AListWithoutADstOrSourcesOrFileIsRefused) {
  TempFile list("a\nb\n");
  // Without the check, "b" would be taken for the DST and written over.
  EXPECT_NE(UsageErrorOf({"-I", list.path()}).find("missing DST"), std::string::npos);
  TempFile comments("# none yet\n");
  EXPECT_NE(UsageErrorOf({"-I", comments.path(), "d"}).find("names none"), std::string::npos);
  const std::string missing = UsageErrorOf({"-I", list.dir() + "/nope", "d"});
  EXPECT_NE(missing.find("cannot read"), std::string::npos) << missing;
  EXPECT_NE(missing.find("No such file"), std::string::npos) << missing;
  EXPECT_NE(UsageErrorOf({"-I", "-", "--files0-from", "-", "d"}).find("both read stdin"),
            std::string::npos);
}

}  // namespace
}  // namespace braid
