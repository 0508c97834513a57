// A copy to many destinations laid out as a chain or a tree (--topology chain,
// tree:K): real servers (local children, and remote ones over the private
// sshd), real feeds between a sink and the source that follows it, real
// files. Every destination ends byte-identical; a destination whose sink is
// killed mid-copy is bypassed (the one after it follows the one before it and
// resumes), the copy ends with exit 16 naming it, and the same command again
// completes it, moving no more than it lacked.

#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

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
using testing::ChildWithOpen;
using testing::DestinationIn;
using testing::JsonReader;
using testing::JsonValue;
using testing::RunBraid;
using testing::SameContents;
using testing::TreeDifferences;
using testing::WaitFor;
using testing::WritePatternFile;

constexpr std::uint64_t kMiB = 1u << 20;

class ChainTest : public testing::SshdTest {
 protected:
  /// Whether -v said that `who` takes its data from `from` as it arrives.
  static bool Follows(const std::string& err, const std::string& who, const std::string& from) {
    for (std::size_t at = err.find("braid: " + who + ": "); at != std::string::npos;
         at = err.find("braid: " + who + ": ", at + 1)) {
      const std::string line = err.substr(at, err.find('\n', at) - at);
      if (line.find(" from " + from + " as it arrives;") != std::string::npos) return true;
    }
    return false;
  }
};

TEST_F(ChainTest, TreeWithTimesAndHashThroughThreeHops) {
  const testing::FileAndTree made = testing::MakeFileAndTree(dir);
  const std::string& src = made.file;
  const std::string& tree = made.tree;
  const std::vector<std::string>& dsts = made.destinations;
  // Two remote hops over ssh, then a local one: each hop its own sessions.
  const std::vector<std::string> to{Remote(dsts[0] + "/"), Remote(dsts[1] + "/"), dsts[2] + "/"};
  auto r = RunBraid({"--json", "-v", "-e", "-p", "-r", "--topology", "chain", src, tree, "--to",
                     to[0], "--to", to[1], "--to", to[2]});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue json = JsonReader::Parse(r.out);
  EXPECT_EQ(json["start"]["topology"].string, "chain");
  EXPECT_EQ(json["end"]["complete"].number, 3);
  for (std::size_t i = 0; i < dsts.size(); ++i) {
    std::string why;
    EXPECT_TRUE(SameContents(src, dsts[i] + "/one.bin", &why)) << dsts[i] << ": " << why;
    EXPECT_EQ(TreeDifferences(tree, dsts[i] + "/tree"), "") << dsts[i];
    EXPECT_EQ(DestinationIn(json, to[i])["outcome"].string, "complete");
  }
  // The second hop reads what the first writes, the third what the second writes.
  EXPECT_TRUE(Follows(r.err, to[1], to[0])) << r.err;
  EXPECT_TRUE(Follows(r.err, to[2], to[1])) << r.err;
  EXPECT_FALSE(Follows(r.err, to[0], "")) << r.err;
  for (const std::string& d : dsts) {
    EXPECT_EQ(std::filesystem::last_write_time(src),
              std::filesystem::last_write_time(d + "/one.bin"));
  }
}

TEST_F(ChainTest, TreeOfTwoToFourDestinations) {
  const std::string src = dir + "/f.bin";
  WritePatternFile(src, 6 * kMiB + 1, 3);
  std::vector<std::string> to;
  std::vector<std::string> args{"-v", "--topology", "tree:2", src};
  for (int i = 1; i <= 4; ++i) {
    to.push_back(dir + "/t" + std::to_string(i) + ".bin");
    args.insert(args.end(), {"--to", to.back()});
  }
  auto r = RunBraid(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const std::string& d : to) EXPECT_TRUE(SameContents(src, d)) << d;
  // Preorder over the order given: t1 and t3 under the source, t2 under t1, t4 under t3.
  EXPECT_TRUE(Follows(r.err, to[1], to[0])) << r.err;
  EXPECT_TRUE(Follows(r.err, to[3], to[2])) << r.err;
  EXPECT_FALSE(Follows(r.err, to[2], to[0])) << r.err;
}

TEST_F(ChainTest, KilledMiddleDestinationIsBypassedAndARerunCompletesIt) {
  const std::string src = dir + "/big.bin";
  const std::uint64_t size = 40 * kMiB;
  WritePatternFile(src, size, 21);
  const std::vector<std::string> to{dir + "/k1.bin", dir + "/k2.bin", dir + "/k3.bin"};
  // -x per hop: slow enough that k2 is still arriving when it is killed.
  const std::vector<std::string> args{"--json", "-v",         "--retry", "0",    "-x",
                                      "12M",    "--topology", "chain",   src,    "--to",
                                      to[0],    "--to",       to[1],     "--to", to[2]};
  {
    BackgroundBraid copy(args, dir);
    // k2's sink: the one child with k2's journal open (k3's source reads only k2's partial file).
    testing::SignalSinkOnceJournaled(copy, to[1], size / 4, to[1] + ".braid-journal", SIGKILL);
    if (HasFatalFailure()) return;
    EXPECT_EQ(copy.Wait(60), testing::kSomeDestinationsFailed) << copy.err();
    EXPECT_NE(copy.err().find("braid: " + to[1] + " failed: "), std::string::npos) << copy.err();
    EXPECT_NE(copy.err().find("1 of 3 destinations failed"), std::string::npos) << copy.err();
    // k3 lost its feed and took the data from k1 instead, keeping what it had.
    EXPECT_TRUE(Follows(copy.err(), to[2], to[1])) << copy.err();
    EXPECT_TRUE(Follows(copy.err(), to[2], to[0])) << copy.err();
    JsonValue json = JsonReader::Parse(copy.out());
    EXPECT_EQ(DestinationIn(json, to[1])["outcome"].string, "failed");
    EXPECT_EQ(DestinationIn(json, to[2])["outcome"].string, "complete");
    EXPECT_EQ(DestinationIn(json, to[2])["from"].string, to[0]);
    EXPECT_EQ(DestinationIn(json, to[0])["from"].type, JsonValue::Type::kNull);
    EXPECT_LT(DestinationIn(json, to[2])["bytes"].number, 1.15 * static_cast<double>(size));
  }
  EXPECT_TRUE(SameContents(src, to[0]));
  EXPECT_TRUE(SameContents(src, to[2]));
  EXPECT_FALSE(std::filesystem::exists(to[1])) << "a broken copy never gets its final name";
  const std::uint64_t kept = testing::JournaledBytes(to[1]);
  ASSERT_GE(kept, size / 4);
  ASSERT_LT(kept, size);

  std::vector<std::string> again = args;
  again.erase(again.begin() + 2, again.begin() + 6);  // no --retry 0, no -x
  auto r = RunBraid(again);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, to[1]));
  JsonValue json = JsonReader::Parse(r.out);
  const double moved = DestinationIn(json, to[1])["bytes"].number;
  std::printf("k2 lacked %llu bytes; the rerun moved %.0f\n",
              static_cast<unsigned long long>(size - kept), moved);
  EXPECT_LE(moved, 1.15 * static_cast<double>(size - kept));
  EXPECT_EQ(DestinationIn(json, to[0])["bytes"].number, 0);
  EXPECT_EQ(DestinationIn(json, to[2])["bytes"].number, 0);
}

// A destination that freezes (SIGSTOP) keeps its feed open and never answers:
// its own copy ends by --stall-timeout, and the hop below it, waiting on that
// feed, is then moved to the node above instead of waiting forever.
TEST_F(ChainTest, AFrozenMiddleDestinationIsBypassedOnceItsCopyStalls) {
  const std::string src = dir + "/f.bin";
  const std::uint64_t size = 24 * kMiB;
  WritePatternFile(src, size, 5);
  const std::vector<std::string> to{dir + "/f1.bin", dir + "/f2.bin", dir + "/f3.bin"};
  BackgroundBraid copy({"--json", "--retry", "0", "--stall-timeout", "2", "-x", "12M", "--topology",
                        "chain", src, "--to", to[0], "--to", to[1], "--to", to[2]},
                       dir);
  pid_t sink = 0;
  testing::SignalSinkOnceJournaled(copy, to[1], size / 4, to[1] + ".braid-journal", SIGSTOP, &sink);
  ASSERT_NE(sink, 0);
  const int status = copy.Wait(60);
  ::kill(sink, SIGKILL);  // ours (a child of our braid), whether or not braid ended it
  EXPECT_EQ(status, testing::kSomeDestinationsFailed) << copy.err();
  EXPECT_NE(copy.err().find("braid: " + to[1] + " failed: "), std::string::npos) << copy.err();
  EXPECT_TRUE(SameContents(src, to[0]));
  EXPECT_TRUE(SameContents(src, to[2])) << copy.err();
  // It follows f1, or the sources if f1 had finished by then: never the frozen f2.
  JsonValue json = JsonReader::Parse(copy.out());
  EXPECT_NE(DestinationIn(json, to[2])["from"].string, to[1]);
}

// A device is written in order, so no hop can read it as it arrives: that
// destination fails, naming why, and the one after it is fed by the source.
TEST_F(ChainTest, ADeviceCannotForwardAndIsBypassed) {
  const std::string src = dir + "/s.bin";
  WritePatternFile(src, 3 * kMiB, 1);
  const std::string after = dir + "/after.bin";
  auto r =
      RunBraid({"--retry", "0", "--topology", "chain", src, "--to", "/dev/null", "--to", after});
  EXPECT_EQ(r.exit_code, testing::kSomeDestinationsFailed) << r.err;
  EXPECT_NE(r.err.find("braid: /dev/null failed: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cannot forward"), std::string::npos) << r.err;
  EXPECT_TRUE(SameContents(src, after));
}

}  // namespace
}  // namespace braid
