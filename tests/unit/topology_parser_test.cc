#include "cli/topology_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "braid/error.h"

namespace braid {
namespace {

/// The message of the kUsage error ParseTopology(text) throws; fails the test if it does not.
std::string TopologyError(std::string_view text) {
  try {
    Topology topology = ParseTopology(text);
    ADD_FAILURE() << "no error for \"" << text << "\", got " << TopologyText(topology);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

TEST(TopologyParserTest, NamesInAnyCase) {
  EXPECT_EQ(ParseTopology("chain"), (Topology{TopologyKind::kChain, 0}));
  EXPECT_EQ(ParseTopology("Chain"), (Topology{TopologyKind::kChain, 0}));
  EXPECT_EQ(ParseTopology("star"), (Topology{TopologyKind::kStar, 0}));
  EXPECT_EQ(ParseTopology("STAR"), (Topology{TopologyKind::kStar, 0}));
  EXPECT_EQ(ParseTopology("auto"), (Topology{TopologyKind::kAuto, 0}));
}

TEST(TopologyParserTest, TreeTakesItsFanOut) {
  EXPECT_EQ(ParseTopology("tree:2"), (Topology{TopologyKind::kTree, 2}));
  EXPECT_EQ(ParseTopology("TREE:3"), (Topology{TopologyKind::kTree, 3}));
  EXPECT_EQ(ParseTopology("tree:64"), (Topology{TopologyKind::kTree, 64}));
  EXPECT_EQ(ParseTopology("tree:007"), (Topology{TopologyKind::kTree, 7}));
}

TEST(TopologyParserTest, TextRoundTrips) {
  for (const char* text : {"chain", "tree:2", "tree:17", "star", "auto"}) {
    EXPECT_EQ(TopologyText(ParseTopology(text)), text);
  }
}

TEST(TopologyParserTest, ErrorsQuoteTheTextAndSayWhy) {
  std::string empty = TopologyError("");
  EXPECT_NE(empty.find("\"\": empty"), std::string::npos) << empty;
  std::string ring = TopologyError("ring");
  EXPECT_NE(ring.find("--topology: invalid value \"ring\": not a topology"), std::string::npos)
      << ring;
  EXPECT_NE(ring.find("use chain, tree:K (K 2-64), star or auto"), std::string::npos) << ring;
  EXPECT_NE(TopologyError("tree").find("\"tree\": tree needs a fan-out, as in tree:2"),
            std::string::npos);
  EXPECT_NE(TopologyError("tree:").find("\"tree:\": tree needs a fan-out after the colon"),
            std::string::npos);
}

TEST(TopologyParserTest, RefusesABadFanOut) {
  for (const char* text : {"tree:x", "tree:+2", "tree:-2", "tree:2x", "tree: 2", "tree:2.5"}) {
    EXPECT_NE(TopologyError(text).find("the fan-out is not a number"), std::string::npos) << text;
  }
  for (const char* text : {"tree:0", "tree:1", "tree:65", "tree:99999999999999"}) {
    EXPECT_NE(TopologyError(text).find("the fan-out is out of range"), std::string::npos) << text;
  }
}

TEST(TopologyParserTest, RefusesNearMisses) {
  for (const char* text : {"chains", " chain", "chain:2", "star:3", "auto:2", "tree;2", "tre:2"}) {
    EXPECT_NE(TopologyError(text).find("not a topology"), std::string::npos) << text;
  }
}

TEST(TopologyParserTest, AControlByteIsEscapedNotEchoed) {
  std::string message = TopologyError("ch\x1b[2Jain");
  EXPECT_EQ(message.find('\x1b'), std::string::npos) << message;
  EXPECT_NE(message.find("\\x1b"), std::string::npos) << message;
}

}  // namespace
}  // namespace braid
