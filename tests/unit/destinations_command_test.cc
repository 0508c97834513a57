// The command line of a copy to many destinations (--to, --to-file,
// --topology) and the destination file's parser (cli/destination_list).

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "cli/destination_list.h"
#include "parse_args.h"
#include "temp_file.h"

namespace braid {
namespace {

using testing::TempFile;

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(DestinationsCommandTest, EveryOperandIsASourceWithTo) {
  const Options o =
      ParseArgs({"-r", "a", "alice@h1:b", "--to", "dtn1:/data/", "--to", "bob@dtn2:/d/"}).options;
  ASSERT_EQ(o.sources.size(), 2u);
  EXPECT_EQ(o.sources[1].host, "h1");
  ASSERT_EQ(o.destinations.size(), 2u);
  EXPECT_EQ(o.destinations[0].host, "dtn1");
  EXPECT_EQ(o.destinations[0].path, "/data/");
  EXPECT_EQ(o.destinations[1].user, "bob");
  EXPECT_TRUE(o.recursive);
  EXPECT_EQ(o.topology.kind, TopologyKind::kAuto);
  // A single source and a single --to is a copy to many of one.
  EXPECT_EQ(ParseArgs({"a", "--to", "x"}).options.destinations.size(), 1u);
  // Without --to, nothing changes.
  EXPECT_TRUE(ParseArgs({"a", "b"}).options.destinations.empty());
}

TEST(DestinationsCommandTest, EveryTopologyParses) {
  EXPECT_EQ(ParseArgs({"a", "--to", "x", "--topology", "star"}).options.topology.kind,
            TopologyKind::kStar);
  EXPECT_EQ(ParseArgs({"a", "--to", "x", "--topology", "AUTO"}).options.topology.kind,
            TopologyKind::kAuto);
  EXPECT_EQ(ParseArgs({"a", "--to", "x", "--topology", "chain"}).options.topology.kind,
            TopologyKind::kChain);
  const Topology tree = ParseArgs({"a", "--to", "x", "--topology", "tree:3"}).options.topology;
  EXPECT_EQ(tree.kind, TopologyKind::kTree);
  EXPECT_EQ(tree.fanout, 3);
  for (const char* bad : {"ring", "tree", "tree:1", "tree:x", ""}) {
    EXPECT_TRUE(Contains(UsageErrorOf({"a", "--to", "x", "--topology", bad}), "--topology")) << bad;
    // A typo fails without destinations too.
    EXPECT_TRUE(Contains(UsageErrorOf({"a", "b", "--topology", bad}), "--topology")) << bad;
  }
}

TEST(DestinationsCommandTest, UsageErrors) {
  EXPECT_TRUE(Contains(UsageErrorOf({"--to", "x"}), "missing SRC"));
  EXPECT_TRUE(Contains(UsageErrorOf({"a", "--to", "x", "--to", "x"}), "given twice"));
  EXPECT_TRUE(Contains(UsageErrorOf({"a", "--to", "-"}), "cannot be stdout"));
  EXPECT_TRUE(Contains(UsageErrorOf({"-", "--to", "x"}), "stdin"));
  EXPECT_TRUE(Contains(UsageErrorOf({"a", "--to", "x", "--json-stream"}), "--json-stream"));
  EXPECT_TRUE(Contains(UsageErrorOf({"a", "--to", "x", "--report-csv", "f"}), "--report-csv"));
  EXPECT_TRUE(Contains(UsageErrorOf({"a", "--to", "@h:x"}), "@"));
}

TEST(DestinationsCommandTest, ToFileWithCommentsAndBlankLines) {
  TempFile file(
      "# tier 1\n\ndtn1:/data/\n  alice@dtn2:/d/  \n\t# off for now: dtn3:/x\n/local/dir\n");
  const Options o = ParseArgs({"a", "--to-file", file.path(), "--to", "dtn4:/y"}).options;
  ASSERT_EQ(o.destinations.size(), 4u);
  EXPECT_EQ(o.destinations[0].Display(), "dtn4:/y");  // --to first, then the file
  EXPECT_EQ(o.destinations[1].Display(), "dtn1:/data/");
  EXPECT_EQ(o.destinations[2].user, "alice");
  EXPECT_EQ(o.destinations[2].path, "/d/");
  EXPECT_FALSE(o.destinations[3].is_remote());
}

TEST(DestinationsCommandTest, ToFileErrorsNameTheFileAndLine) {
  TempFile bad("dtn1:/a\n# fine\n@dtn2:/b\n");
  std::string e = UsageErrorOf({"a", "--to-file", bad.path()});
  EXPECT_TRUE(Contains(e, bad.path() + ":3: ")) << e;
  TempFile dash("dtn1:/a\n-\n");
  e = UsageErrorOf({"a", "--to-file", dash.path()});
  EXPECT_TRUE(Contains(e, dash.path() + ":2: ")) << e;
  TempFile empty("# nobody yet\n\n");
  e = UsageErrorOf({"a", "--to-file", empty.path()});
  EXPECT_TRUE(Contains(e, "no destination")) << e;
  e = UsageErrorOf({"a", "--to-file", "/nonexistent/braid-destinations"});
  EXPECT_TRUE(Contains(e, "/nonexistent/braid-destinations")) << e;
  EXPECT_TRUE(Contains(e, "No such file")) << e;
}

TEST(DestinationsCommandTest, NotFromAConfigFile) {
  TempFile config("to = dtn1:/data/\n");
  const std::string e = UsageErrorOf({"-C", config.path(), "a", "b"});
  EXPECT_TRUE(Contains(e, "cannot be set in a config file")) << e;
  TempFile layout("topology = star\n");
  EXPECT_EQ(ParseArgs({"-C", layout.path(), "a", "--to", "x"}).options.topology.kind,
            TopologyKind::kStar);
}

TEST(DestinationListTest, ParsesAndBounds) {
  EXPECT_TRUE(ParseDestinationList("", "f").empty());
  EXPECT_TRUE(ParseDestinationList("\n\n#x\n   \n", "f").empty());
  std::vector<Endpoint> one = ParseDestinationList("h:/p\r\n", "f");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].path, "/p");  // a CRLF file's CR is not part of the path
  std::string many;
  for (std::size_t i = 0; i <= kMaxDestinations; ++i) many += "h" + std::to_string(i) + ":/p\n";
  try {
    ParseDestinationList(many, "f");
    ADD_FAILURE() << "no error for too many destinations";
  } catch (const BraidError& e) {
    EXPECT_TRUE(Contains(e.what(), "f:" + std::to_string(kMaxDestinations + 1) + ": ")) << e.what();
  }
}

}  // namespace
}  // namespace braid
