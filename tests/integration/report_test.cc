// --json, --report-csv and the config file, through the real binary: the
// reports must parse, add up to the bytes copied, and carry every stream.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "support/mini_json.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::JsonReader;
using testing::JsonValue;
using testing::RunBraid;
using testing::WritePatternFile;
using testing::WriteText;

constexpr std::uint64_t kMiB = 1u << 20;

class ReportTest : public testing::SshdTest {
 protected:
  /// stdout as a JSON document; fails the test (with the text) if it is not one.
  static JsonValue ParseJson(const std::string& out) {
    try {
      return JsonReader::Parse(out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << "\n" << out;
      return {};
    }
  }

  /// Checks what every successful --json document must satisfy for `bytes`
  /// copied over `streams` streams.
  static void ExpectConsistent(const JsonValue& doc, std::uint64_t bytes, int streams) {
    const JsonValue& end = doc["end"];
    EXPECT_EQ(end["bytes"].number, static_cast<double>(bytes));
    EXPECT_EQ(end["streams_used"].number, streams);
    EXPECT_FALSE(doc.Has("error"));
    double interval_sum = 0;
    double interval_seconds = 0;
    for (const JsonValue& iv : doc["intervals"].array) {
      interval_sum += iv["bytes"].number;
      interval_seconds += iv["seconds"].number;
    }
    EXPECT_GE(doc["intervals"].array.size(), 1u);
    EXPECT_EQ(interval_sum, static_cast<double>(bytes));
    EXPECT_NEAR(interval_seconds, end["seconds"].number, 1e-3);
    // The source's per-stream counts are exact at the end: together they are
    // every byte (no compression here), and each stream is listed once.
    std::set<double> indices;
    double stream_sum = 0;
    for (const JsonValue& s : end["streams"].array) {
      indices.insert(s["index"].number);
      stream_sum += s["bytes"].number;
      if (s["bytes"].number > 0) {
        EXPECT_GT(s["max_rtt_us"].number, 0) << "RTT from TCP_INFO";
      }
    }
    EXPECT_EQ(indices.size(), static_cast<std::size_t>(streams));
    EXPECT_EQ(stream_sum, static_cast<double>(bytes));
  }
};

TEST_F(ReportTest, JsonIsTheOnlyThingOnStdoutAndAddsUp) {
  const std::uint64_t size = 600 * kMiB;
  auto r = RunBraid({"--json", "-s", "2", "-P", "0.2", "--size", "600M", "/dev/zero", "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue doc = ParseJson(r.out);
  ASSERT_EQ(doc.type, JsonValue::Type::kObject);
  EXPECT_EQ(doc["start"]["options"]["streams"].number, 2);
  EXPECT_EQ(doc["start"]["source"].array.at(0).string, "/dev/zero");
  EXPECT_EQ(doc["start"]["destination"].string, "/dev/null");
  EXPECT_GT(doc["start"]["timesecs"].number, 1.6e9);
  ExpectConsistent(doc, size, 2);
  EXPECT_EQ(doc["end"]["files"].number, 1);
}

TEST_F(ReportTest, JsonWithMd5SendsTheDigestLinesToStderr) {
  std::string src = dir + "/md5-src";
  std::string to = dir + "/md5-dst";
  WritePatternFile(src, 5 * kMiB + 17, 9);
  auto r = RunBraid({"--json", "-e", "-s", "3", src, to});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue doc = ParseJson(r.out);
  ExpectConsistent(doc, 5 * kMiB + 17, 3);
  EXPECT_TRUE(doc["end"]["hash_verified"].boolean);
  EXPECT_EQ(doc["start"]["options"]["hash"].string, "md5");
  EXPECT_NE(r.err.find(testing::FileMd5(src) + "  " + to), std::string::npos) << r.err;
}

TEST_F(ReportTest, JsonOverSshPushAndPull) {
  std::string src = dir + "/ssh-src";
  WritePatternFile(src, 3 * kMiB + 5, 4);
  // Push: the source is a local child. Pull: its stream samples cross ssh.
  auto push = RunBraid({"--json", "-s", "2", src, Remote(dir + "/pushed")});
  ASSERT_EQ(push.exit_code, 0) << push.err;
  ExpectConsistent(ParseJson(push.out), 3 * kMiB + 5, 2);
  auto pull = RunBraid({"--json", "-s", "4", Remote(src), dir + "/pulled"});
  ASSERT_EQ(pull.exit_code, 0) << pull.err;
  JsonValue doc = ParseJson(pull.out);
  ExpectConsistent(doc, 3 * kMiB + 5, 4);
  EXPECT_EQ(doc["start"]["source"].array.at(0).string, Remote(src));
}

TEST_F(ReportTest, TreeCopyCountsEachFileOnce) {
  // The JSON and the summary line count the files listed, and the FileDone
  // messages after a failure; the servers' own counts (Done.files) must not add to them.
  std::string tree =
      testing::MakeTree(dir + "/count-tree",
                        {testing::TreeFile("big", 3 * kMiB + 1), testing::TreeFile("a/small", 10),
                         testing::TreeFile("a/empty", 0), testing::TreeFile("a/deep/mid", 70000),
                         testing::TreeDirectory("empty_dir")});
  std::filesystem::create_directories(dir + "/count-copy");
  auto r = RunBraid({"--json", "-v", "-r", "-s", "2", tree, Remote(dir + "/count-copy/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue doc = ParseJson(r.out);
  ExpectConsistent(doc, 3 * kMiB + 1 + 10 + 70000, 2);
  EXPECT_EQ(doc["end"]["files"].number, 4);
  EXPECT_NE(r.err.find(" in 4 files in "), std::string::npos) << r.err;
}

TEST_F(ReportTest, AutoConnectsOnlyTheStreamsTheDataCanUse) {
  // One byte needs one stream, not the 64 that -s auto may use; a minimum is kept.
  std::string tiny = dir + "/tiny";
  WritePatternFile(tiny, 1, 5);
  for (const auto& [spec, want] : {std::pair<std::string, int>{"auto", 1}, {"auto:3-64", 3}}) {
    auto r = RunBraid({"--json", "-s", spec, tiny, Remote(dir + "/tiny-" + spec)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectConsistent(ParseJson(r.out), 1, want);
    EXPECT_EQ(testing::FileMd5(dir + "/tiny-" + spec), testing::FileMd5(tiny));
  }
  // 3 MiB and 5 bytes in 1 MiB blocks: four blocks, four streams at most.
  std::string src = dir + "/four-blocks";
  WritePatternFile(src, 3 * kMiB + 5, 6);
  auto r = RunBraid({"--json", "-B", "1M", src, dir + "/four-blocks-copy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue doc = ParseJson(r.out);
  EXPECT_LE(doc["end"]["streams"].array.size(), 4u) << r.out;
  EXPECT_EQ(testing::FileMd5(dir + "/four-blocks-copy"), testing::FileMd5(src));
  // Past the opening's 16, one stream for every 4 blocks: 40 blocks connect 16, 160
  // connect 40 (the plan line of -v says how many connect).
  for (const auto& [blocks, want] :
       {std::pair<int, const char*>{40, "; 16 streams"}, {160, "; 40 streams"}}) {
    std::string many = dir + "/blocks-" + std::to_string(blocks);
    WritePatternFile(many, std::uint64_t(blocks) * 64 * 1024, 7);
    auto v = RunBraid({"-v", "-B", "64K", many, Remote(many + "-copy")});
    ASSERT_EQ(v.exit_code, 0) << v.err;
    EXPECT_NE(v.err.find(want), std::string::npos) << v.err;
    EXPECT_EQ(testing::FileMd5(many + "-copy"), testing::FileMd5(many));
  }
}

TEST_F(ReportTest, JsonReportsAFailureWithItsExitCode) {
  auto r = RunBraid({"--json", dir + "/does-not-exist", dir + "/x"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << r.err;
  JsonValue doc = ParseJson(r.out);
  ASSERT_TRUE(doc.Has("error")) << r.out;
  EXPECT_NE(doc["error"].string.find("does-not-exist"), std::string::npos);
  EXPECT_EQ(doc["end"]["bytes"].number, 0);
}

TEST_F(ReportTest, JsonCannotShareStdoutWithTheData) {
  auto r = RunBraid({"--json", "--size", "1M", "/dev/zero", "-"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find("--json"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST_F(ReportTest, CsvHasAHeaderAndRowsForEveryStreamThatAddUp) {
  const std::uint64_t size = 1024 * kMiB;
  std::string csv = dir + "/report.csv";
  auto r = RunBraid(
      {"--report-csv", csv, "-P", "0.2", "-s", "3", "--size", "1G", "/dev/zero", "/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  std::ifstream in(csv);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "time,stream,bytes,rate_Bps,rtt_us,cwnd,retransmits,active_streams");
  std::map<int, std::uint64_t> bytes_by_stream;
  std::map<int, double> last_time;
  int rows = 0;
  while (std::getline(in, line)) {
    SCOPED_TRACE(line);
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) f.push_back(cell);
    ASSERT_EQ(f.size(), 8u);
    double time = std::stod(f[0]);
    int stream = std::stoi(f[1]);
    EXPECT_GT(time, 1.6e9);  // Unix time, so separate flows line up
    EXPECT_GE(time, last_time[stream]);
    last_time[stream] = time;
    bytes_by_stream[stream] += std::stoull(f[2]);
    EXPECT_GT(std::stoul(f[5]), 0u) << "cwnd from TCP_INFO";
    ++rows;
  }
  EXPECT_EQ(bytes_by_stream.size(), 3u);
  EXPECT_GE(rows, 3);
  std::uint64_t total = 0;
  for (const auto& [stream, bytes] : bytes_by_stream) total += bytes;
  EXPECT_EQ(total, size);
}

TEST_F(ReportTest, UnwritableCsvFileIsAUsageError) {
  auto r = RunBraid(
      {"--report-csv", dir + "/no/such/dir/r.csv", "--size", "1M", "/dev/zero", "/dev/null"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find("no/such/dir/r.csv"), std::string::npos) << r.err;
}

TEST_F(ReportTest, ConfigFileAppliesAndTheCommandLineOverridesIt) {
  std::string home = dir + "/home";
  std::filesystem::create_directories(home + "/.config/braid");
  WriteText(home + "/.config/braid/config", "# test defaults\nstreams = 2\nblocksize = 256K\n");
  std::map<std::string, std::string> env = {{"HOME", home}};

  auto r = RunBraid({"--json", "--size", "64M", "/dev/zero", "/dev/null"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue doc = ParseJson(r.out);
  EXPECT_EQ(doc["start"]["options"]["streams"].number, 2);
  EXPECT_EQ(doc["start"]["options"]["block_size"].number, 256 * 1024);
  ExpectConsistent(doc, 64 * kMiB, 2);

  r = RunBraid({"--json", "-s", "3", "--size", "64M", "/dev/zero", "/dev/null"}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = ParseJson(r.out);
  EXPECT_EQ(doc["start"]["options"]["block_size"].number, 256 * 1024);
  ExpectConsistent(doc, 64 * kMiB, 3);
}

TEST_F(ReportTest, ConfigFileErrorsNameFileAndLine) {
  std::string cfg = dir + "/bad-config";
  WriteText(cfg, "streams = 2\n\nstreems = 3\n");
  auto r = RunBraid({"-C", cfg, "--size", "1M", "/dev/zero", "/dev/null"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find(cfg + ":3: unknown option \"streems\""), std::string::npos) << r.err;

  r = RunBraid({"-C", dir + "/missing-config", "--size", "1M", "/dev/zero", "/dev/null"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find("missing-config"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace braid
