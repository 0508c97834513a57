// What braid says while a copy runs, through the real binary: the bar in a
// pseudo-terminal (total, file count, current file and an ETA that is not
// 00:00 before the end), -P lines whose last average is the summary's,
// --json-stream read line by line by python3's json module, and the -v and
// -vv lines about the ssh connection.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::RunBraid;
using testing::RunBraidInTerminal;
using testing::RunProcess;
using testing::WritePatternFile;

constexpr std::uint64_t kMiB = 1u << 20;

class LiveOutputTest : public testing::SshdTest {
 protected:
  /// `count` files of `size` bytes under dir/NAME/.
  std::string MakeTree(const std::string& name, int count, std::uint64_t size) {
    const std::string top = dir + "/" + name;
    fs::create_directories(top);
    for (int i = 0; i < count; ++i) {
      WritePatternFile(top + "/file" + std::to_string(10 + i) + ".bin", size,
                       static_cast<std::uint64_t>(i));
    }
    return top;
  }
};

/// The bar's frames: what each carriage return redrew.
std::vector<std::string> Frames(const std::string& terminal) {
  std::vector<std::string> frames;
  std::string frame;
  for (char c : terminal) {
    if (c == '\r' || c == '\n') {
      if (frame.find("ETA") != std::string::npos) frames.push_back(frame);
      frame.clear();
    } else {
      frame += c;
    }
  }
  return frames;
}

TEST_F(LiveOutputTest, TheBarShowsTotalCountCurrentFileAndAnEtaThatIsRight) {
  const std::string src = MakeTree("bar-src", 12, kMiB);
  // 12 MiB at 6 MiB/s: two seconds of frames, four a second.
  ProcessResult r =
      RunBraidInTerminal({"-r", "-x", "6M", "-s", "2", src, dir + "/bar-dst"}, {}, 60, 160);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::vector<std::string> frames = Frames(r.out);
  ASSERT_GE(frames.size(), 4u) << r.out;
  bool named_a_file = false;
  for (const std::string& f : frames) {
    SCOPED_TRACE(f);
    EXPECT_NE(f.find("/12.00 MiB"), std::string::npos);
    EXPECT_NE(f.find("/12 files"), std::string::npos);
    named_a_file = named_a_file || std::regex_search(f, std::regex("bar-src/file[0-9]+\\.bin$"));
    if (f.find("ETA --:--") != std::string::npos) continue;  // no rate yet
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        f, m,
        std::regex("([0-9]+)% ([0-9.]+)( B| KiB)?/12.00 MiB  ([0-9.]+) (B|KiB|MiB)/s  ETA "
                   "([0-9]+):([0-9]+)")));
    const int percent = std::stoi(m[1]);
    const int eta = std::stoi(m[6]) * 60 + std::stoi(m[7]);
    // What the issue saw: "ETA 00:00" with a sixth of the copy to go.
    if (percent < 90) {
      EXPECT_GE(eta, 1);
    }
    // The time left is what is left at the rate the same frame shows (both
    // rounded for display), whatever the machine's speed.
    auto in_mib = [](const std::string& number, const std::string& unit) {
      return std::stod(number) / (unit == "B" ? kMiB : unit == "KiB" ? 1024.0 : 1.0);
    };
    const std::string done_unit = m[3].matched ? m[3].str().substr(1) : "MiB";
    const double rate_mib = in_mib(m[4], m[5]);
    const double left_mib = 12 - in_mib(m[2], done_unit);
    if (rate_mib > 0) {
      EXPECT_NEAR(eta, std::ceil(left_mib / rate_mib), 1 + 0.1 * left_mib / rate_mib);
    }
  }
  EXPECT_TRUE(named_a_file) << r.out;
  EXPECT_NE(frames.back().find("100%"), std::string::npos) << frames.back();
}

TEST_F(LiveOutputTest, ProgressLinesHaveAnEtaAndEndOnTheSummarysAverage) {
  const std::string src = MakeTree("lines-src", 4, 2 * kMiB);
  ProcessResult r = RunBraid({"-r", "-x", "8M", "-P", "0.3", src, dir + "/lines-dst"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.err);
  std::string last_line;
  std::string summary;
  int lines = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find(" cur ") != std::string::npos) {
      ++lines;
      last_line = line;
      // Unknown ("--:--:--") only until a rate is known.
      EXPECT_TRUE(std::regex_search(line, std::regex("ETA ([0-9]{2}:[0-9]{2}:[0-9]{2}|--:--:--)$")))
          << line;
      EXPECT_NE(line.find(" of 8.00 MiB  "), std::string::npos) << line;
      EXPECT_NE(line.find("/4 files"), std::string::npos) << line;
      EXPECT_EQ(line.find("MB/s"), std::string::npos) << line;  // one unit family
    }
    if (line.rfind("braid: copied ", 0) == 0) summary = line;
  }
  ASSERT_GE(lines, 2) << r.err;
  ASSERT_FALSE(summary.empty()) << r.err;
  std::smatch avg;
  ASSERT_TRUE(std::regex_search(last_line, avg, std::regex("avg ([^ ]+ [A-Za-z]+/s)")))
      << last_line;
  EXPECT_NE(summary.find("(" + avg[1].str() + ")"), std::string::npos) << last_line << "\n"
                                                                       << summary;
  EXPECT_NE(last_line.find("ETA 00:00:00"), std::string::npos) << last_line;
}

TEST_F(LiveOutputTest, JsonStreamIsOneEventALine) {
  const std::string src = MakeTree("stream-src", 3, kMiB);
  ProcessResult r = RunBraid(
      {"--json-stream", "-e", "-r", "-x", "4M", "-P", "0.25", src, Remote(dir + "/stream-dst")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Each line on its own, as a tool that follows the copy reads them.
  ProcessResult py = RunProcess({"python3", "-c", R"(import json, sys
events = [json.loads(line) for line in sys.stdin]
kinds = [e["event"] for e in events]
assert kinds[0] == "start" and kinds[-1] == "end", kinds
assert events[0]["files"] == 3 and events[0]["bytes"] == 3 * 1048576, events[0]
assert kinds.count("interval") >= 2, kinds
assert kinds.count("file") == 3, kinds
files = [e for e in events if e["event"] == "file"]
assert all(e["path"].startswith("braidtest:") and e["size"] == 1048576 for e in files), files
assert all(len(e["digest"]) == 32 and e["algorithm"] == "md5" for e in files), files
done = [e["bytes_done"] for e in events if e["event"] == "interval"]
assert done == sorted(done) and done[-1] == 3 * 1048576, done
assert events[-1]["exit_code"] == 0 and events[-1]["files"] == 3, events[-1]
assert "error" not in kinds
)"},
                                {}, r.out);
  EXPECT_EQ(py.exit_code, 0) << py.err << "\n" << r.out;
  // The digest lines go to stderr, leaving stdout to the events.
  EXPECT_TRUE(std::regex_search(r.err, std::regex("[0-9a-f]{32}  /"))) << r.err;
}

TEST_F(LiveOutputTest, AFailedCopyStreamsItsErrorAndEnd) {
  ProcessResult r = RunBraid({"--json-stream", dir + "/not-there", dir + "/x"});
  ASSERT_NE(r.exit_code, 0) << r.err;
  ProcessResult py = RunProcess({"python3", "-c",
                                 R"(import json, sys
events = [json.loads(line) for line in sys.stdin]
assert [e["event"] for e in events] == ["error", "end"], events
assert events[0]["exit_code"] == )" + std::to_string(r.exit_code) +
                                     R"(, events
assert "not-there" in events[0]["message"], events
assert events[1]["exit_code"] == events[0]["exit_code"], events
)"},
                                {}, r.out);
  EXPECT_EQ(py.exit_code, 0) << py.err << "\n" << r.out;
  EXPECT_EQ(RunBraid({"--json", "--json-stream", dir + "/a", dir + "/b"}).exit_code, 2);
}

TEST_F(LiveOutputTest, VerboseSaysTheKeysAndVeryVerboseTheSteps) {
  const std::string src = dir + "/v.bin";
  WritePatternFile(src, 1000, 1);
  ProcessResult v = RunBraid({"-v", src, Remote(dir + "/v-copy")});
  ASSERT_EQ(v.exit_code, 0) << v.err;
  EXPECT_TRUE(std::regex_search(v.err, std::regex("braid: braidtest: host key ED25519 "
                                                  "SHA256:[A-Za-z0-9+/]{43}, known in ")))
      << v.err;
  EXPECT_NE(
      v.err.find("braid: braidtest: logged in as " + sshd.user() + " with ~/.ssh/id_ed25519\n"),
      std::string::npos)
      << v.err;
  EXPECT_NE(v.err.find("sink listening on 127.0.0.1 port "), std::string::npos) << v.err;
  EXPECT_EQ(v.err.find("ssh handshake done"), std::string::npos) << v.err;

  ProcessResult vv = RunBraid({"-vv", src, Remote(dir + "/vv-copy")});
  ASSERT_EQ(vv.exit_code, 0) << vv.err;
  EXPECT_NE(vv.err.find("braid: braidtest: connecting to 127.0.0.1 port "), std::string::npos)
      << vv.err;
  EXPECT_NE(vv.err.find("braid: braidtest: ssh handshake done with SSH-2.0-OpenSSH"),
            std::string::npos)
      << vv.err;
  EXPECT_NE(vv.err.find("braid: braidtest: running braid --serve"), std::string::npos) << vv.err;
}

}  // namespace
}  // namespace braid
