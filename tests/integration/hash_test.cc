// -E md5 / sha256 / xxh128 through the real binary: local, push and pull,
// a file and a tree. What braid prints must be what md5sum, sha256sum and
// xxh128sum print for the source, and `*sum -c` must accept braid's lines
// as they are.

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/mini_json.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::JsonReader;
using testing::JsonValue;
using testing::RunBraid;
using testing::RunProcess;
using testing::WritePatternFile;

constexpr std::uint64_t kMiB = 1u << 20;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Algorithm {
  const char* option;  ///< as the user types it: case does not matter
  const char* tool;    ///< the coreutils / xxhash tool that prints the same line
};

class HashTest : public testing::SshdTest, public ::testing::WithParamInterface<Algorithm> {
 protected:
  /// The hex value `tool` prints for `path`.
  std::string ToolHex(const std::string& path) {
    testing::ProcessResult r = RunProcess({GetParam().tool, path});
    EXPECT_EQ(r.exit_code, 0) << GetParam().tool << ": " << r.err;
    return r.out.substr(0, r.out.find(' '));
  }

  /// `tool -c` over braid's printed lines: every copy checks out.
  void ExpectToolAccepts(const std::string& lines) {
    std::string sums = dir + "/sums-" + GetParam().tool;
    std::ofstream(sums) << lines;
    testing::ProcessResult r = RunProcess({GetParam().tool, "-c", sums});
    EXPECT_EQ(r.exit_code, 0) << lines << r.out << r.err;
  }
};

TEST_P(HashTest, FileLocalPushAndPullPrintWhatTheSumToolPrints) {
  std::string src = dir + "/src";
  WritePatternFile(src, 9 * kMiB + 12345, 77);
  std::string expected = ToolHex(src);
  ASSERT_FALSE(expected.empty());
  struct Way {
    std::string from, to, printed;
  };
  for (const Way& w :
       {Way{src, dir + "/local", dir + "/local"}, Way{src, Remote(dir + "/push"), dir + "/push"},
        Way{Remote(src), dir + "/pull", dir + "/pull"}}) {
    SCOPED_TRACE(w.to);
    auto r = RunBraid({"-E", GetParam().option, "-s", "3", "-B", "1M", w.from, w.to});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, expected + "  " + w.printed + "\n");
  }
  // The lines name the copy as its host has it (no host: prefix), so the
  // tool checks each where it was written; here that is this machine.
  ExpectToolAccepts(expected + "  " + dir + "/local\n" + expected + "  " + dir + "/push\n" +
                    expected + "  " + dir + "/pull\n");
}

TEST_P(HashTest, TreeWithEmptyAndSmallFilesAndJsonReport) {
  std::string top = dir + "/tree";
  ASSERT_TRUE(std::filesystem::create_directories(top + "/sub"));
  WritePatternFile(top + "/a", 3 * kMiB + 1, 1);
  WritePatternFile(top + "/sub/b", 100, 2);
  WritePatternFile(top + "/sub/empty", 0, 3);
  std::string to = dir + "/tree-copy";
  auto r = RunBraid({"-r", "--json", "-E", GetParam().option, top, Remote(to)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // With --json the lines go to stderr; every one of them is checkable.
  std::string lines;
  for (const char* name : {"/a", "/sub/b", "/sub/empty"}) {
    std::string line = ToolHex(top + name) + "  " + to + name + "\n";
    EXPECT_NE(r.err.find(line), std::string::npos) << line << r.err;
    lines += line;
  }
  ExpectToolAccepts(lines);
  JsonValue doc = JsonReader::Parse(r.out);
  std::string name = Lower(GetParam().option);
  EXPECT_EQ(doc["start"]["options"]["hash"].string, name);
  EXPECT_TRUE(doc["end"]["hash_verified"].boolean);
  ASSERT_EQ(doc["end"]["digests"].array.size(), 3u);
  for (const JsonValue& d : doc["end"]["digests"].array) {
    EXPECT_EQ(d["algorithm"].string, name);
    std::string path = d["path"].string;
    ASSERT_EQ(path.rfind(Remote(to), 0), 0u) << path;
    EXPECT_EQ(d["value"].string, ToolHex(top + path.substr(Remote(to).size())));
  }
}

INSTANTIATE_TEST_SUITE_P(Algorithms, HashTest,
                         ::testing::Values(Algorithm{"md5", "md5sum"},
                                           Algorithm{"SHA256", "sha256sum"},
                                           Algorithm{"xxh128", "xxh128sum"}),
                         [](const ::testing::TestParamInfo<Algorithm>& info) {
                           return std::string(info.param.tool);
                         });

}  // namespace
}  // namespace braid
