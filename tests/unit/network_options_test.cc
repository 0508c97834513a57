// -q/--qos, --cc and --data-host on the command line.

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "cli/command_line.h"
#include "parse_args.h"

namespace braid {
namespace {

Options ParseOptions(std::vector<std::string> args) { return ParseArgs(std::move(args)).options; }

TEST(NetworkOptionsTest, DefaultsLeaveTheSocketsAlone) {
  Options o = ParseOptions({"a", "b"});
  EXPECT_EQ(o.tos, -1);
  EXPECT_EQ(o.congestion_control, "");
  EXPECT_EQ(o.data_host, "");
}

TEST(NetworkOptionsTest, QosShortAndLong) {
  EXPECT_EQ(ParseOptions({"-q", "qbss", "a", "b"}).tos, 0x20);
  EXPECT_EQ(ParseOptions({"--qos", "LE", "a", "b"}).tos, 0x04);
  EXPECT_EQ(ParseOptions({"--qos=0xb8", "a", "b"}).tos, 0xb8);
  EXPECT_EQ(ParseOptions({"-q", "0", "a", "b"}).tos, 0);
}

TEST(NetworkOptionsTest, BadQosNamesTheOptionAndTheChoices) {
  std::string message = UsageErrorOf({"-q", "scavenger", "a", "b"});
  EXPECT_NE(message.find("-q/--qos"), std::string::npos) << message;
  EXPECT_NE(message.find("qbss, le, ef"), std::string::npos) << message;
  EXPECT_NE(UsageErrorOf({"-q", "300", "a", "b"}).find("at most 255"), std::string::npos);
}

TEST(NetworkOptionsTest, CongestionControlName) {
  EXPECT_EQ(ParseOptions({"--cc", "cubic", "a", "b"}).congestion_control, "cubic");
  EXPECT_EQ(ParseOptions({"--cc", "bbr", "a", "b"}).congestion_control, "bbr");
  // Fifteen characters is the kernel's limit.
  EXPECT_EQ(ParseOptions({"--cc", "abcdefghij_12-4", "a", "b"}).congestion_control,
            "abcdefghij_12-4");
}

TEST(NetworkOptionsTest, CongestionControlNameIsChecked) {
  for (std::string bad : {"", "abcdefghij_12-45", "cu bic", "../cubic", "cubic\n"}) {
    EXPECT_NE(UsageErrorOf({"--cc", bad, "a", "b"}).find("--cc must be"), std::string::npos) << bad;
  }
}

TEST(NetworkOptionsTest, DataHostTakesNumericAddresses) {
  EXPECT_EQ(ParseOptions({"--data-host", "127.0.0.1", "a", "b"}).data_host, "127.0.0.1");
  EXPECT_EQ(ParseOptions({"--data-host", "::1", "a", "b"}).data_host, "::1");
  EXPECT_EQ(ParseOptions({"--data-host", "[2001:db8::7]", "a", "b"}).data_host, "2001:db8::7");
  EXPECT_EQ(ParseOptions({"--data-host", "fe80::1%eth0", "a", "b"}).data_host, "fe80::1%eth0");
}

TEST(NetworkOptionsTest, DataHostRefusesNames) {
  for (std::string bad :
       {"", "localhost", "dtn.example.org", "127.0.0.1%lo", "1.2.3", "::g", "[127.0.0.1"}) {
    EXPECT_NE(UsageErrorOf({"--data-host", bad, "a", "b"}).find("--data-host must be"),
              std::string::npos)
        << bad;
  }
}

}  // namespace
}  // namespace braid
