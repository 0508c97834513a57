// What a copy to many destinations shows (agent/report/star_report): the
// progress line, the exit status of the whole, the failure lines, --json.

#include "agent/report/star_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../support/mini_json.h"

namespace braid {
namespace {

using testing::JsonReader;
using testing::JsonValue;

DestinationStatus Running(const std::string& name, std::uint64_t have, std::uint64_t total,
                          double rate) {
  DestinationStatus d;
  d.name = name;
  d.have = have;
  d.moved = have;
  d.total = total;
  d.rate_Bps = rate;
  return d;
}

DestinationStatus Ended(const std::string& name, int exit_code, ErrorCode code,
                        const std::string& error = "") {
  DestinationStatus d = Running(name, 100, 100, 0);
  d.finished = true;
  d.exit_code = exit_code;
  d.error_code = code;
  d.error = error;
  return d;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(StarReportTest, ProgressNamesSlowestAndFastestOfTheRunning) {
  std::vector<DestinationStatus> now{Running("a:/x", 80, 100, 2 << 20),
                                     Ended("b:/x", 0, ErrorCode::kOk),
                                     Running("c:/x", 42, 100, 1 << 20)};
  const std::string line = FormatStarProgress(now, 5);
  EXPECT_EQ(line,
            "1/3 destinations done; slowest c:/x 42% 1.0 MiB/s; fastest a:/x 80% 2.0 MiB/s; "
            "elapsed 00:05");
  now.push_back(Ended("d:/x", 8, ErrorCode::kTargetUnwritable, "d:/x: No such directory"));
  EXPECT_TRUE(Contains(FormatStarProgress(now, 5), "1/4 destinations done, 1 failed;"));
  // A lone runner is only the slowest.
  const std::string lone = FormatStarProgress({Running("a:/x", 10, 100, 0)}, 1);
  EXPECT_TRUE(Contains(lone, "slowest a:/x 10%"));
  EXPECT_FALSE(Contains(lone, "fastest"));
}

TEST(StarReportTest, ExitCode) {
  EXPECT_EQ(StarExitCode({Ended("a", 0, ErrorCode::kOk), Ended("b", 0, ErrorCode::kOk)}), 0);
  // Some failed, the rest complete: the documented 16.
  const std::vector<DestinationStatus> some{Ended("a", 0, ErrorCode::kOk),
                                            Ended("b", 13, ErrorCode::kPeerLost, "lost")};
  EXPECT_EQ(StarExitCode(some), 16);
  EXPECT_EQ(StarErrorCode(some), ErrorCode::kDestinationsFailed);
  EXPECT_EQ(ExitCodeFor(ErrorCode::kDestinationsFailed), 16);
  // All failed alike: that failure's own status, as one copy would exit.
  EXPECT_EQ(StarExitCode({Ended("a", 8, ErrorCode::kTargetUnwritable),
                          Ended("b", 8, ErrorCode::kTargetUnwritable)}),
            8);
  // All failed, differently: 16 still.
  EXPECT_EQ(StarExitCode({Ended("a", 8, ErrorCode::kTargetUnwritable),
                          Ended("b", 13, ErrorCode::kPeerLost)}),
            16);
  EXPECT_EQ(
      StarExitCode({Ended("a", 23, ErrorCode::kPartial), Ended("b", 23, ErrorCode::kPartial)}), 23);
  // The new code is the agent's alone: no peer may send it.
  EXPECT_GT(static_cast<std::uint16_t>(ErrorCode::kDestinationsFailed), kMaxErrorCode);
}

TEST(StarReportTest, FailureAndSummaryLines) {
  const DestinationStatus d =
      Ended("dtn2:/data/", 13, ErrorCode::kPeerLost, "the sink on dtn2 ended unexpectedly");
  EXPECT_EQ(StarFailureLine(d),
            "dtn2:/data/ failed: the sink on dtn2 ended unexpectedly (exit 13)");
  EXPECT_EQ(StarSummaryLine({Ended("a", 0, ErrorCode::kOk), d, Ended("c", 0, ErrorCode::kOk)}),
            "1 of 3 destinations failed (named above); the other 2 are complete; run the same "
            "command again to complete it");
  EXPECT_EQ(StarSummaryLine({d, Ended("a", 0, ErrorCode::kOk)}),
            "1 of 2 destinations failed (named above); the other one is complete; run the same "
            "command again to complete it");
  EXPECT_EQ(StarSummaryLine({d, d}),
            "2 of 2 destinations failed (named above); none is complete; run the same command "
            "again to complete them");
}

TEST(StarReportTest, JsonPerDestination) {
  DestinationStatus ok = Ended("a:/x", 0, ErrorCode::kOk);
  ok.moved = 1000;
  ok.seconds = 2;
  ok.skipped = 24;
  ok.predicted_Bps = 600;
  DestinationStatus hop = Ended("b:/\"x\"", 8, ErrorCode::kTargetUnwritable, "b: no dir");
  hop.from = "a:/x";
  const std::string doc = FormatStarJson({ok, hop}, "star", 3.5);
  JsonValue v = JsonReader::Parse(doc);
  EXPECT_EQ(v["start"]["topology"].string, "star");
  ASSERT_EQ(v["destinations"].array.size(), 2u);
  const JsonValue& a = v["destinations"].array[0];
  EXPECT_EQ(a["destination"].string, "a:/x");
  EXPECT_EQ(a["outcome"].string, "complete");
  EXPECT_EQ(a["bytes"].number, 1000);
  EXPECT_EQ(a["bytes_skipped"].number, 24);
  EXPECT_EQ(a["bits_per_second"].number, 4000);
  EXPECT_EQ(a["predicted_bits_per_second"].number, 4800);
  const JsonValue& b = v["destinations"].array[1];
  EXPECT_EQ(b["destination"].string, "b:/\"x\"");
  EXPECT_EQ(b["outcome"].string, "failed");
  EXPECT_EQ(b["error"].string, "b: no dir");
  EXPECT_EQ(b["exit_code"].number, 8);
  EXPECT_EQ(b["from"].string, "a:/x");
  EXPECT_EQ(b["predicted_bits_per_second"].type, JsonValue::Type::kNull) << "not measured";
  EXPECT_EQ(a["from"].type, JsonValue::Type::kNull);
  EXPECT_EQ(v["end"]["exit_code"].number, 16);
  EXPECT_EQ(v["end"]["error_code"].number, 19);
  EXPECT_EQ(v["end"]["error_name"].string, "destinations-failed");
  EXPECT_EQ(v["end"]["failed"].number, 1);
  EXPECT_EQ(v["end"]["complete"].number, 1);
  EXPECT_TRUE(Contains(v["error"].string, "1 of 2 destinations failed"));
}

}  // namespace
}  // namespace braid
