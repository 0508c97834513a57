// -H/--hard-links: files that are one file at the source (one inode, several
// names) arrive as one file with as many names, pushed, pulled and locally;
// without -H each name is a file of its own. The same command again keeps the
// links, and a name that became a separate file is linked again.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::MakeTree;
using testing::RunBraid;
using testing::SameContents;
using testing::TreeDifferences;
using testing::TreeFile;

struct stat StatOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

bool SameInode(const std::string& a, const std::string& b) {
  const struct stat x = StatOf(a);
  const struct stat y = StatOf(b);
  return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

class HardLinksTest : public testing::SshdTest {
 protected:
  /// tree/data.bin with two more names (one in another directory), and a
  /// small file linked once more; other.bin is a file of its own.
  void MakeLinkedTree() {
    MakeTree(dir + "/tree", {TreeFile("data.bin", 6u << 20), TreeFile("sub/small", 300),
                             TreeFile("other.bin", 5000)});
    ASSERT_EQ(::link((dir + "/tree/data.bin").c_str(), (dir + "/tree/sub/again.bin").c_str()), 0);
    ASSERT_EQ(::link((dir + "/tree/data.bin").c_str(), (dir + "/tree/zz.bin").c_str()), 0);
    ASSERT_EQ(::link((dir + "/tree/sub/small").c_str(), (dir + "/tree/small2").c_str()), 0);
  }
  void ExpectLinked(const std::string& copy) {
    EXPECT_EQ(TreeDifferences(dir + "/tree", copy), "");
    EXPECT_TRUE(SameInode(copy + "/data.bin", copy + "/sub/again.bin"));
    EXPECT_TRUE(SameInode(copy + "/data.bin", copy + "/zz.bin"));
    EXPECT_EQ(StatOf(copy + "/data.bin").st_nlink, 3u);
    EXPECT_TRUE(SameInode(copy + "/sub/small", copy + "/small2"));
    EXPECT_EQ(StatOf(copy + "/other.bin").st_nlink, 1u);
  }
};

TEST_F(HardLinksTest, PushedTreeKeepsItsLinksAndTheSameCommandAgainKeepsThem) {
  MakeLinkedTree();
  std::filesystem::create_directories(dir + "/out");
  auto r = RunBraid({"-r", "-H", dir + "/tree", Remote(dir + "/out/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectLinked(dir + "/out/tree");

  // Someone made one name a file of its own: the re-run links it again.
  std::filesystem::remove(dir + "/out/tree/zz.bin");
  std::filesystem::copy_file(dir + "/tree/data.bin", dir + "/out/tree/zz.bin");
  auto again = RunBraid({"-r", "--hard-links", dir + "/tree", Remote(dir + "/out/")});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  ExpectLinked(dir + "/out/tree");
}

TEST_F(HardLinksTest, PulledAndLocalTreesKeepTheirLinks) {
  MakeLinkedTree();
  std::filesystem::create_directories(dir + "/in");
  auto pulled = RunBraid({"-r", "-H", Remote(dir + "/tree"), dir + "/in/"});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  ExpectLinked(dir + "/in/tree");

  auto local = RunBraid({"-r", "-H", dir + "/tree", dir + "/local"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ExpectLinked(dir + "/local");
}

TEST_F(HardLinksTest, WithoutHEachNameIsAFileOfItsOwn) {
  MakeLinkedTree();
  auto r = RunBraid({"-r", dir + "/tree", Remote(dir + "/plain")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(TreeDifferences(dir + "/tree", dir + "/plain"), "");
  EXPECT_FALSE(SameInode(dir + "/plain/data.bin", dir + "/plain/zz.bin"));
  EXPECT_EQ(StatOf(dir + "/plain/data.bin").st_nlink, 1u);
}

TEST_F(HardLinksTest, TwoNamedSourcesThatAreOneFileArriveAsOne) {
  MakeLinkedTree();
  std::filesystem::create_directories(dir + "/two");
  auto r = RunBraid({"-H", dir + "/tree/data.bin", dir + "/tree/zz.bin", Remote(dir + "/two/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(dir + "/tree/data.bin", dir + "/two/zz.bin"));
  EXPECT_TRUE(SameInode(dir + "/two/data.bin", dir + "/two/zz.bin"));
}

}  // namespace
}  // namespace braid
