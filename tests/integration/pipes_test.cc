// -N/--pipes (bbcp's -N): a shell command at either end. The source copies
// what its command writes; the sink feeds its command. Pushed, pulled and
// locally, a tree through tar at both ends; a command that fails is an error
// naming its host, the command and its status, and nothing gets a final name.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "braid/error.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::MakeTree;
using testing::ReadWhole;
using testing::RunBraid;
using testing::SameContents;
using testing::TreeDifferences;
using testing::TreeFile;

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class PipesTest : public testing::SshdTest {};

TEST_F(PipesTest, ATreeThroughTarAtBothEnds) {
  MakeTree(dir + "/tree", {TreeFile("a.bin", 3u << 20), TreeFile("sub/b.txt", 1000)});
  std::filesystem::create_directories(dir + "/out");
  auto r =
      RunBraid({"-N", "io", "tar cf - -C " + dir + " tree", Remote("tar xf - -C " + dir + "/out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(TreeDifferences(dir + "/tree", dir + "/out/tree"), "");

  // Pulled, and with the long name.
  std::filesystem::create_directories(dir + "/back");
  auto pulled = RunBraid(
      {"--pipes", "io", Remote("tar cf - -C " + dir + " tree"), "tar xf - -C " + dir + "/back"});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  EXPECT_EQ(TreeDifferences(dir + "/tree", dir + "/back/tree"), "");
}

TEST_F(PipesTest, ACommandsOutputToAFileAndAFileIntoACommand) {
  testing::WritePatternFile(dir + "/data", 5u << 20, 7);
  auto in = RunBraid({"-N", "i", "cat " + dir + "/data", Remote(dir + "/copied")});
  ASSERT_EQ(in.exit_code, 0) << in.err;
  EXPECT_TRUE(SameContents(dir + "/data", dir + "/copied"));

  auto out = RunBraid({"-N", "o", dir + "/data", Remote("cat > " + dir + "/fed")});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_TRUE(SameContents(dir + "/data", dir + "/fed"));

  // Locally, with -e: the digest is of what went into the command.
  auto local = RunBraid({"-e", "-N", "io", "cat " + dir + "/data", "cat > " + dir + "/local"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_TRUE(SameContents(dir + "/data", dir + "/local"));
  EXPECT_TRUE(Has(local.out, testing::FileMd5(dir + "/data"))) << local.out;
}

TEST_F(PipesTest, ASourceCommandThatFailsLeavesNoFile) {
  auto r = RunBraid({"-N", "i", "echo partial; exit 3", Remote(dir + "/never")});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << r.err;
  EXPECT_TRUE(Has(r.err, "the command 'echo partial; exit 3' exited with status 3")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/never"));
}

TEST_F(PipesTest, ATargetCommandThatFailsIsAnError) {
  testing::WritePatternFile(dir + "/data", 100000, 3);
  auto r = RunBraid({"-N", "o", dir + "/data", Remote("cat > /dev/null; exit 4")});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable)) << r.err;
  EXPECT_TRUE(Has(r.err, "exited with status 4")) << r.err;
  EXPECT_TRUE(Has(r.err, sshd.alias())) << r.err;

  // One that stops reading early ends the copy too, not the server.
  auto early = RunBraid({"-N", "o", dir + "/data", Remote("head -c 10 > /dev/null; exit 0")});
  EXPECT_EQ(early.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable)) << early.err;
  EXPECT_TRUE(Has(early.err,
                  "the command 'head -c 10 > /dev/null; exit 0' stopped reading "
                  "before the end of the data"))
      << early.err;
}

TEST_F(PipesTest, MisuseIsAUsageError) {
  const int usage = ExitCodeFor(ErrorCode::kUsage);
  EXPECT_EQ(RunBraid({"-N", "x", "a", "b"}).exit_code, usage);
  EXPECT_EQ(RunBraid({"-N", "i", "a", "b", dir + "/c"}).exit_code, usage);
  EXPECT_EQ(RunBraid({"-N", "i", "-r", "a", dir + "/c"}).exit_code, usage);
  EXPECT_EQ(RunBraid({"-N", "o", "a", "-"}).exit_code, usage);
  EXPECT_EQ(RunBraid({"-N", "i", "a", "--to", dir + "/c", "--to", dir + "/d"}).exit_code, usage);
}

}  // namespace
}  // namespace braid
