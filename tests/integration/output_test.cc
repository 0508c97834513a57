// What braid prints, through the real binary: --help within 80 columns and
// without CLI11's leftovers, --version's lines, -V as -vv, singulars in the
// -v lines, -e lines that `md5sum -c` accepts whatever the names hold,
// --json read by python3's json module, and no resume hint after a failed
// copy to /dev/null (nothing there is kept).

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "proto/control_message.h"
#include "support/background_braid.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::BackgroundBraid;
using testing::RunBraid;
using testing::RunProcess;
using testing::WaitFor;
using testing::WritePatternFile;
using testing::WriteText;

constexpr std::uint64_t kMiB = 1u << 20;

class OutputTest : public testing::SshdTest {
 protected:
  /// Runs `script` under python3 with `json_text` on its stdin; the script
  /// reads it with json.load and exits non-zero (printing why) on a mismatch.
  static void ExpectPythonAccepts(const std::string& json_text, const std::string& script) {
    testing::ProcessResult py =
        RunProcess({"python3", "-c", "import json, sys\ndoc = json.load(sys.stdin)\n" + script}, {},
                   json_text);
    EXPECT_EQ(py.exit_code, 0) << py.out << py.err << "\n" << json_text;
  }

  /// `md5sum -c` over `lines`, written to a file as braid printed them.
  void ExpectMd5sumAccepts(const std::string& lines, const std::string& name) {
    std::string sums = dir + "/" + name;
    WriteText(sums, lines);
    testing::ProcessResult r = RunProcess({"md5sum", "-c", "--strict", sums});
    EXPECT_EQ(r.exit_code, 0) << lines << r.out << r.err;
  }
};

TEST_F(OutputTest, HelpFitsEightyColumnsWithoutParserLeftovers) {
  auto r = RunBraid({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int count = 0;
  while (std::getline(lines, line)) {
    ++count;
    EXPECT_LE(line.size(), 80u) << line;
    EXPECT_EQ(line.find('{'), std::string::npos) << line;
    EXPECT_EQ(line.find(" TEXT"), std::string::npos) << line;
  }
  EXPECT_GT(count, 40);
  for (const char* section :
       {"\nCopying:\n", "\nStreams and network:\n", "\nResume:\n", "\nOutput:\n", "\nssh:\n"}) {
    EXPECT_NE(r.out.find(section), std::string::npos) << section;
  }
}

TEST_F(OutputTest, VersionNamesBraidTheProtocolAndTheLibraries) {
  auto r = RunBraid({"--version"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> lines;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 6u) << r.out;
  const char* prefixes[] = {"braid ", "protocol ", "OpenSSL ", "libssh2 ", "zlib ", "xxHash "};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].rfind(prefixes[i], 0), 0u) << lines[i];
    EXPECT_GT(lines[i].size(), std::string(prefixes[i]).size()) << lines[i];
  }
  EXPECT_EQ(lines[1], "protocol " + std::to_string(kProtocolVersion));
}

TEST_F(OutputTest, CapitalVIsVeryVerboseAndOneOfAThingIsSingular) {
  std::string src = dir + "/one";
  WritePatternFile(src, 300000, 3);
  auto r = RunBraid({"-V", "-s", "1", src, Remote(dir + "/one-copy")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("braid: 1 file, "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("; 1 stream\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" in 1 file in "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" over 1 stream"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("1 files"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("1 streams"), std::string::npos) << r.err;
  // -vv says the same (today), so -V must too.
  auto vv = RunBraid({"-vv", "-s", "1", src, dir + "/one-copy-vv"});
  ASSERT_EQ(vv.exit_code, 0) << vv.err;
  EXPECT_NE(vv.err.find("braid: 1 file, "), std::string::npos) << vv.err;
}

TEST_F(OutputTest, Md5sumChecksTheLinesForNamesWithSpacesNewlinesAndBackslashes) {
  std::string top = dir + "/names";
  ASSERT_TRUE(std::filesystem::create_directories(top + "/sub dir"));
  const std::vector<std::string> names = {"/plain", "/with space", "/sub dir/new\nline",
                                          "/back\\slash", "/both \\ and\n"};
  for (std::size_t i = 0; i < names.size(); ++i) WritePatternFile(top + names[i], 1000 + i, i);
  // A local target, and a remote one (the same file system here): the lines
  // name the file as the sink has it, so md5sum -c runs where the copies are.
  for (const std::string& to : {dir + "/local-copy", Remote(dir + "/remote-copy")}) {
    SCOPED_TRACE(to);
    auto r = RunBraid({"-r", "-e", top, to});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("\\"), std::string::npos) << r.out;  // escaped names are there
    std::size_t count = 0;
    for (char c : r.out) count += c == '\n' ? 1 : 0;
    EXPECT_EQ(count, names.size()) << r.out;  // one line a file, newlines in names escaped
    ExpectMd5sumAccepts(r.out, "sums" + std::to_string(to.size()));
  }
}

TEST_F(OutputTest, JsonListsBusyStreamsOnlyAndTheCountAsChosen) {
  std::string src = dir + "/json-src";
  WritePatternFile(src, kMiB, 7);
  // One block over eight fixed streams: seven carry nothing.
  auto fixed = RunBraid({"--json", "-s", "8", "-B", "1M", "-P", "0.05", src, dir + "/json-a"});
  ASSERT_EQ(fixed.exit_code, 0) << fixed.err;
  ExpectPythonAccepts(fixed.out, R"(
opts = doc["start"]["options"]
assert opts["streams"] == 8, opts
ends = doc["end"]["streams"]
assert len(ends) == 8, ends
busy = {s["index"] for s in ends if s["bytes"] > 0}
assert 0 < len(busy) < 8, ends
listed = set()
for iv in doc["intervals"]:
    for s in iv["streams"]:
        assert s["bytes"] > 0, iv
        listed.add(s["index"])
assert listed == busy, (listed, busy)
assert doc["end"]["exit_code"] == 0 and doc["end"]["error_code"] == 0, doc["end"]
)");
  auto automatic = RunBraid({"--json", src, dir + "/json-b"});
  ASSERT_EQ(automatic.exit_code, 0) << automatic.err;
  ExpectPythonAccepts(automatic.out, R"(
assert doc["start"]["options"]["streams"] == "auto:1-64", doc["start"]["options"]
)");
  auto ranged = RunBraid({"--json", "-s", "auto:2-6", src, dir + "/json-c"});
  ASSERT_EQ(ranged.exit_code, 0) << ranged.err;
  ExpectPythonAccepts(ranged.out, R"(
assert doc["start"]["options"]["streams"] == "auto:2-6", doc["start"]["options"]
)");
}

TEST_F(OutputTest, AFailedCopysJsonEndHasTheExitAndErrorCodes) {
  auto r = RunBraid({"--json", dir + "/not-there", dir + "/x"});
  ASSERT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << r.err;
  ExpectPythonAccepts(r.out, R"(
end = doc["end"]
assert end["exit_code"] == 7, end
assert end["error_code"] == 8, end
assert end["error_name"] == "source-unreadable", end
assert "not-there" in doc["error"], doc
)");
}

TEST_F(OutputTest, AFailedCopyToDevNullPromisesNoResume) {
  std::string src = dir + "/to-null";
  WritePatternFile(src, 6 * kMiB, 5);
  BackgroundBraid copy({"-v", "-s", "1", "-B", "64K", "-x", "1M", src, Remote("/dev/null")}, dir);
  // The plan line comes just before the source is told to send: from then on
  // the copy has started, which is when the hint used to appear.
  ASSERT_TRUE(WaitFor([&] { return copy.err().find("; 1 stream") != std::string::npos; }, 60))
      << copy.err();
  copy.Signal(SIGTERM);
  EXPECT_EQ(copy.Wait(), 128 + SIGTERM) << copy.err();
  EXPECT_EQ(copy.err().find("journaled"), std::string::npos) << copy.err();
  EXPECT_EQ(copy.err().find("run the same command again"), std::string::npos) << copy.err();
  EXPECT_EQ(copy.err().find("partial file"), std::string::npos) << copy.err();
}

}  // namespace
}  // namespace braid
