#include "cli/qos_parser.h"

#include <gtest/gtest.h>

#include <string>

#include "braid/error.h"

namespace braid {
namespace {

/// The message of the kUsage error ParseQos(text) throws; fails the test if it does not.
std::string QosError(std::string_view text) {
  try {
    int value = ParseQos(text);
    ADD_FAILURE() << "no error for \"" << text << "\", got " << value;
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage) << e.what();
    return e.what();
  }
  return "";
}

TEST(QosParserTest, Numbers) {
  EXPECT_EQ(ParseQos("0"), 0);
  EXPECT_EQ(ParseQos("32"), 0x20);
  EXPECT_EQ(ParseQos("255"), 255);
  EXPECT_EQ(ParseQos("0x20"), 0x20);
  EXPECT_EQ(ParseQos("0XB8"), 0xb8);
  EXPECT_EQ(ParseQos("0xff"), 255);
  EXPECT_EQ(ParseQos("007"), 7);
}

TEST(QosParserTest, ScavengerNames) {
  EXPECT_EQ(ParseQos("qbss"), 0x20);  // CS1
  EXPECT_EQ(ParseQos("QBSS"), 0x20);
  EXPECT_EQ(ParseQos("le"), 0x04);  // DSCP 1, RFC 8622
  EXPECT_EQ(ParseQos("LE"), 0x04);
}

TEST(QosParserTest, ExpeditedForwarding) {
  EXPECT_EQ(ParseQos("ef"), 0xb8);
  EXPECT_EQ(ParseQos("Ef"), 0xb8);
}

TEST(QosParserTest, AssuredForwardingFollowsRfc2597) {
  // The RFC 2597 table, as TOS bytes.
  EXPECT_EQ(ParseQos("af11"), 0x28);
  EXPECT_EQ(ParseQos("af12"), 0x30);
  EXPECT_EQ(ParseQos("af13"), 0x38);
  EXPECT_EQ(ParseQos("af21"), 0x48);
  EXPECT_EQ(ParseQos("af22"), 0x50);
  EXPECT_EQ(ParseQos("af23"), 0x58);
  EXPECT_EQ(ParseQos("af31"), 0x68);
  EXPECT_EQ(ParseQos("af32"), 0x70);
  EXPECT_EQ(ParseQos("af33"), 0x78);
  EXPECT_EQ(ParseQos("AF41"), 0x88);
  EXPECT_EQ(ParseQos("af42"), 0x90);
  EXPECT_EQ(ParseQos("af43"), 0x98);
}

TEST(QosParserTest, ClassSelectors) {
  for (int n = 0; n <= 7; ++n) {
    EXPECT_EQ(ParseQos("cs" + std::to_string(n)), n << 5) << "cs" << n;
  }
  EXPECT_EQ(ParseQos("CS1"), ParseQos("qbss"));
}

TEST(QosParserTest, OutOfRangeNumbers) {
  EXPECT_NE(QosError("256").find("at most 255"), std::string::npos);
  EXPECT_NE(QosError("0x100").find("at most 255"), std::string::npos);
  EXPECT_NE(QosError("99999999999999999999").find("not a number"), std::string::npos);
}

TEST(QosParserTest, MalformedNumbers) {
  for (std::string_view text : {"-1", "+1", "1.5", "32 ", " 32", "0x", "0xg0", "12abc", "0b101"}) {
    EXPECT_NE(QosError(text).find("not a number"), std::string::npos) << text;
  }
}

TEST(QosParserTest, UnknownNamesListTheAcceptedOnes) {
  for (std::string_view text : {"", "cs8", "af14", "af51", "af1", "af111", "qbs", "bulk", "efx"}) {
    std::string message = QosError(text);
    EXPECT_NE(message.find("qbss, le, ef, af11..af43, cs0..cs7"), std::string::npos)
        << text << ": " << message;
    EXPECT_NE(message.find("-q/--qos"), std::string::npos) << message;
  }
}

TEST(QosParserTest, ErrorQuotesAndEscapesTheInput) {
  std::string message = QosError("x\x1b[2J");
  EXPECT_NE(message.find("\"x\\x1b[2J\""), std::string::npos) << message;
}

}  // namespace
}  // namespace braid
