// -I FILE and --files0-from FILE (bbcp's -I, rsync's --files-from): the
// sources a file lists are copied as operands would be, over the private sshd.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::WritePatternFile;
using testing::WriteText;

class ListedSourcesTest : public testing::SshdTest {};

TEST_F(ListedSourcesTest, ListedFilesAndATreeArriveAsOperandsWould) {
  std::filesystem::create_directories(dir + "/tree/sub");
  WritePatternFile(dir + "/one.bin", 5u << 20, 1);
  WritePatternFile(dir + "/two words.bin", 70000, 2);
  WritePatternFile(dir + "/tree/sub/three.bin", 3u << 20, 3);
  WriteText(dir + "/list", "# the run's outputs\n" + dir + "/one.bin\n" + dir +
                               "/two words.bin\n\n" + dir + "/tree\n");
  std::filesystem::create_directories(dir + "/out");
  auto r = RunBraid({"-r", "-I", dir + "/list", Remote(dir + "/out/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(dir + "/one.bin", dir + "/out/one.bin"));
  EXPECT_TRUE(SameContents(dir + "/two words.bin", dir + "/out/two words.bin"));
  auto diff = RunProcess({"diff", "-r", dir + "/tree", dir + "/out/tree"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out;
}

TEST_F(ListedSourcesTest, NulSeparatedNamesFromStdin) {
  WritePatternFile(dir + "/a\nnewline.bin", 4096, 4);
  WritePatternFile(dir + "/b.bin", 2u << 20, 5);
  std::filesystem::create_directories(dir + "/out");
  const std::string names = dir + "/a\nnewline.bin" + '\0' + dir + "/b.bin" + '\0';
  auto r = RunBraid({"--files0-from", "-", Remote(dir + "/out/")}, {}, names);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(dir + "/a\nnewline.bin", dir + "/out/a\nnewline.bin"));
  EXPECT_TRUE(SameContents(dir + "/b.bin", dir + "/out/b.bin"));
}

}  // namespace
}  // namespace braid
