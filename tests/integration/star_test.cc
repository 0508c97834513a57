// A copy to many destinations (--to, --to-file), laid out by auto (a chain)
// where the layout does not matter and as a star where it does: real
// servers (local children, and remote ones over the private sshd), real
// files. Every destination ends byte-identical; one that fails (its target
// directory missing, its sink killed mid-copy) leaves the others complete,
// ends with exit 16 and a line naming it, and the same command run again
// completes only it, resuming what it kept.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "support/background_braid.h"
#include "support/fanout_support.h"
#include "support/journal_probe.h"
#include "support/mini_json.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::BackgroundBraid;
using testing::Exists;
using testing::JsonReader;
using testing::JsonValue;
using testing::RunBraid;
using testing::SameContents;
using testing::TreeDifferences;
using testing::WritePatternFile;

constexpr std::uint64_t kMiB = 1u << 20;
constexpr int kStarFailed = testing::kSomeDestinationsFailed;

class StarTest : public testing::SshdTest {
 protected:
  static const JsonValue& Leg(const JsonValue& json, const std::string& d) {
    return testing::DestinationIn(json, d);
  }
};

TEST_F(StarTest, FileAndTreeWithHashToThreeDestinations) {
  const testing::FileAndTree made = testing::MakeFileAndTree(dir);
  const std::vector<std::string>& dsts = made.destinations;
  // Two remote destinations over ssh, one local: each is a session of its own.
  const std::vector<std::string> to{Remote(dsts[0] + "/"), Remote(dsts[1] + "/"), dsts[2] + "/"};
  auto r = RunBraid({"--json", "-e", "-p", "-r", made.file, made.tree, "--to", to[0], "--to", to[1],
                     "--to", to[2]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue json = JsonReader::Parse(r.out);
  EXPECT_EQ(json["end"]["complete"].number, 3);
  EXPECT_EQ(json["end"]["exit_code"].number, 0);
  for (std::size_t i = 0; i < dsts.size(); ++i) {
    std::string why;
    EXPECT_TRUE(SameContents(made.file, dsts[i] + "/one.bin", &why)) << dsts[i] << ": " << why;
    EXPECT_EQ(TreeDifferences(made.tree, dsts[i] + "/tree"), "") << dsts[i];
    EXPECT_EQ(Leg(json, to[i])["outcome"].string, "complete");
    EXPECT_EQ(Leg(json, to[i])["bytes"].number, made.bytes);
  }
}

// With the options of a copy to one, which each destination takes as its own.
TEST_F(StarTest, ToFileWithComments) {
  const std::string src = dir + "/f.bin";
  WritePatternFile(src, 2 * kMiB + 1, 3);
  const std::string list = dir + "/destinations";
  std::ofstream(list) << "# the tier-1 sites\n\n"
                      << Remote(dir + "/a.bin") << "\n"
                      << "  # not this one: " << Remote(dir + "/no.bin") << "\n"
                      << dir + "/b.bin   \n";
  auto r = RunBraid({"-c", "-s", "4", "--cipher", "chacha20-poly1305", "--to-file", list, src});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, dir + "/a.bin"));
  EXPECT_TRUE(SameContents(src, dir + "/b.bin"));
  EXPECT_FALSE(Exists(dir + "/no.bin"));
}

TEST_F(StarTest, UsageErrors) {
  const std::string src = dir + "/f.bin";
  WritePatternFile(src, 10, 3);
  const std::string empty = dir + "/empty";
  std::ofstream(empty) << "# nobody yet\n";
  auto r = RunBraid({src, "--to-file", empty});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no destination"), std::string::npos) << r.err;
  r = RunBraid({src, "--to", dir + "/x", "--topology", "ring"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--topology: invalid value \"ring\""), std::string::npos) << r.err;
  const std::string bad = dir + "/bad";
  std::ofstream(bad) << Remote(dir + "/ok") << "\n@nobody:/x\n";
  r = RunBraid({src, "--to-file", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad + ":2: "), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dir + "/x"));
  EXPECT_FALSE(Exists(dir + "/ok"));
}

TEST_F(StarTest, MissingTargetDirectoryFailsAloneAndARerunCompletesIt) {
  const std::string src = dir + "/f.bin";
  WritePatternFile(src, 5 * kMiB + 7, 9);
  const std::string missing = dir + "/later/sub";
  const std::vector<std::string> to{Remote(dir + "/d1.bin"), Remote(missing + "/"),
                                    dir + "/d3.bin"};
  const std::vector<std::string> args{"--json", "--retry", "0",   src,    "--to",
                                      to[0],    "--to",    to[1], "--to", to[2]};
  auto r = RunBraid(args);
  EXPECT_EQ(r.exit_code, kStarFailed) << r.err;
  EXPECT_TRUE(SameContents(src, dir + "/d1.bin"));
  EXPECT_TRUE(SameContents(src, dir + "/d3.bin"));
  // One line names the failed destination (host and path) and its cause.
  EXPECT_NE(r.err.find("braid: " + to[1] + " failed: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No such"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 of 3 destinations failed"), std::string::npos) << r.err;
  JsonValue json = JsonReader::Parse(r.out);
  EXPECT_EQ(json["end"]["exit_code"].number, kStarFailed);
  EXPECT_EQ(json["end"]["error_name"].string, "destinations-failed");
  EXPECT_EQ(Leg(json, to[1])["outcome"].string, "failed");
  EXPECT_EQ(Leg(json, to[1])["exit_code"].number, ExitCodeFor(ErrorCode::kTargetUnwritable));
  EXPECT_NE(Leg(json, to[1])["error"].string, "");

  std::filesystem::create_directories(missing);
  r = RunBraid(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, missing + "/f.bin"));
  json = JsonReader::Parse(r.out);
  // What was complete is skipped: only the one that failed moves data.
  EXPECT_EQ(Leg(json, to[0])["bytes"].number, 0);
  EXPECT_EQ(Leg(json, to[2])["bytes"].number, 0);
  EXPECT_EQ(Leg(json, to[1])["bytes"].number, 5 * kMiB + 7);
}

TEST_F(StarTest, SinkKilledMidCopyTheOthersCompleteAndARerunResumesIt) {
  const std::string src = dir + "/big.bin";
  const std::uint64_t size = 40 * kMiB;
  WritePatternFile(src, size, 21);
  const std::vector<std::string> to{dir + "/k1.bin", dir + "/k2.bin", dir + "/k3.bin"};
  // -x per destination: slow enough that k2 is still arriving when it is killed.
  const std::vector<std::string> args{"--json", "--retry", "0",          "-P",  "0.5",  "-x",
                                      "12M",    src,       "--to",       to[0], "--to", to[1],
                                      "--to",   to[2],     "--topology", "star"};
  std::uint64_t kept = 0;
  {
    BackgroundBraid copy(args, dir);
    // k2's sink: the child of this braid that has k2's partial file open.
    testing::SignalSinkOnceJournaled(copy, to[1], size / 4, to[1] + ".braid-part", SIGKILL);
    if (HasFatalFailure()) return;
    EXPECT_EQ(copy.Wait(30), kStarFailed) << copy.err();
    EXPECT_NE(copy.err().find("braid: " + to[1] + " failed: "), std::string::npos) << copy.err();
    // -P: the star's line, the destinations done and the slowest and fastest running.
    EXPECT_NE(copy.err().find("braid: 0/3 destinations done; slowest "), std::string::npos)
        << copy.err();
    EXPECT_NE(copy.err().find("; fastest "), std::string::npos) << copy.err();
    JsonValue json = JsonReader::Parse(copy.out());
    EXPECT_EQ(Leg(json, to[1])["outcome"].string, "failed");
    EXPECT_EQ(Leg(json, to[0])["outcome"].string, "complete");
  }
  EXPECT_TRUE(SameContents(src, to[0]));
  EXPECT_TRUE(SameContents(src, to[2]));
  EXPECT_FALSE(Exists(to[1])) << "a broken copy must never appear under its final name";
  kept = testing::JournaledBytes(to[1]);
  ASSERT_GE(kept, size / 4);
  ASSERT_LT(kept, size);

  auto r = RunBraid({"--json", "--retry", "0", src, "--to", to[0], "--to", to[1], "--to", to[2],
                     "--topology", "star"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, to[1]));
  JsonValue json = JsonReader::Parse(r.out);
  const double moved = Leg(json, to[1])["bytes"].number;
  std::printf("k2 lacked %llu bytes; the rerun moved %.0f\n",
              static_cast<unsigned long long>(size - kept), moved);
  EXPECT_LE(moved, 1.15 * static_cast<double>(size - kept));
  EXPECT_EQ(Leg(json, to[1])["bytes_skipped"].number, kept);
  EXPECT_EQ(Leg(json, to[0])["bytes"].number, 0);
  EXPECT_EQ(Leg(json, to[2])["bytes"].number, 0);
}

TEST_F(StarTest, AKilledSinkIsRetriedAloneAndCompletes) {
  const std::string src = dir + "/r.bin";
  const std::uint64_t size = 24 * kMiB;
  WritePatternFile(src, size, 5);
  const std::vector<std::string> to{dir + "/r1.bin", dir + "/r2.bin"};
  BackgroundBraid copy({"--json", "--retry", "1", "-x", "12M", src, "--to", to[0], "--to", to[1],
                        "--topology", "star"},
                       dir);
  testing::SignalSinkOnceJournaled(copy, to[0], size / 4, to[0] + ".braid-part", SIGKILL);
  if (HasFatalFailure()) return;
  ASSERT_EQ(copy.Wait(30), 0) << copy.err();
  EXPECT_TRUE(SameContents(src, to[0]));
  EXPECT_TRUE(SameContents(src, to[1]));
  // The retry's lines name the destination that had it.
  EXPECT_NE(copy.err().find("braid: " + to[0] + ": retry 1 of 1"), std::string::npos) << copy.err();
  JsonValue json = JsonReader::Parse(copy.out());
  EXPECT_EQ(Leg(json, to[0])["retries"].number, 1);
  EXPECT_EQ(Leg(json, to[1])["retries"].number, 0);
  EXPECT_EQ(json["end"]["exit_code"].number, 0);
}

TEST_F(StarTest, RemoteSourceToTwoLocalDestinations) {
  const std::string src = dir + "/pulled.bin";
  WritePatternFile(src, 3 * kMiB + 11, 8);
  std::filesystem::create_directory(dir + "/p1");
  std::filesystem::create_directory(dir + "/p2");
  auto r = RunBraid({"-e", Remote(src), "--to", dir + "/p1/", "--to", dir + "/p2/"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, dir + "/p1/pulled.bin"));
  EXPECT_TRUE(SameContents(src, dir + "/p2/pulled.bin"));
  // The digest line once, not once per destination.
  std::size_t lines = 0;
  for (std::size_t at = r.out.find("pulled.bin"); at != std::string::npos;
       at = r.out.find("pulled.bin", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << r.out;
}

}  // namespace
}  // namespace braid
