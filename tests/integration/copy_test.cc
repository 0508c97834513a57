// Whole copies through the real binary: local, push and pull over a private
// sshd on 127.0.0.1, compared byte for byte.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "braid/error.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::SshdFixture;
using testing::WritePatternFile;

constexpr std::uint64_t kBlock = 1u << 20;  // braid's default block size
constexpr std::uint64_t kGiB = 1ull << 30;

class CopyTest : public testing::SshdTest {
 protected:
  /// One 1 GiB file for every test in the binary, made once.
  static const std::string& GiBFile() {
    static const std::string path = [] {
      std::string p = SshdFixture::Get().root() + "/one-gib.dat";
      WritePatternFile(p, kGiB, 42);
      return p;
    }();
    return path;
  }

  void ExpectCopied(const std::vector<std::string>& args, const std::string& from,
                    const std::string& to) {
    auto r = RunBraid(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::string why;
    EXPECT_TRUE(SameContents(from, to, &why)) << why;
    EXPECT_FALSE(testing::Exists(to + ".braid-part"));
  }
};

TEST_F(CopyTest, EdgeSizesLocalPushAndPull) {
  for (std::uint64_t size : {std::uint64_t{0}, std::uint64_t{1}, kBlock - 1, kBlock, kBlock + 1}) {
    SCOPED_TRACE("size " + std::to_string(size));
    std::string src = dir + "/src-" + std::to_string(size);
    WritePatternFile(src, size, size + 7);
    ExpectCopied({src, dir + "/local-" + std::to_string(size)}, src,
                 dir + "/local-" + std::to_string(size));
    ExpectCopied({src, Remote(dir + "/push-" + std::to_string(size))}, src,
                 dir + "/push-" + std::to_string(size));
    ExpectCopied({Remote(src), dir + "/pull-" + std::to_string(size)}, src,
                 dir + "/pull-" + std::to_string(size));
  }
}

class GiBPushTest : public CopyTest, public ::testing::WithParamInterface<int> {};

TEST_P(GiBPushTest, OneGiBPushWithStreams) {
  std::string to = dir + "/gib-push";
  ExpectCopied({"-s", std::to_string(GetParam()), GiBFile(), Remote(to)}, GiBFile(), to);
}

INSTANTIATE_TEST_SUITE_P(Streams, GiBPushTest, ::testing::Values(1, 4, 64));

class GiBPullTest : public CopyTest, public ::testing::WithParamInterface<int> {};

TEST_P(GiBPullTest, OneGiBPullWithStreams) {
  std::string to = dir + "/gib-pull";
  ExpectCopied({"-s", std::to_string(GetParam()), Remote(GiBFile()), to}, GiBFile(), to);
}

INSTANTIATE_TEST_SUITE_P(Streams, GiBPullTest, ::testing::Values(1, 4, 64));

TEST_F(CopyTest, OneGiBPullWithMd5PrintsWhatMd5sumPrints) {
  std::string to = dir + "/gib-pull";
  auto r = RunBraid({"-e", "-s", "8", Remote(GiBFile()), to});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected = testing::FileMd5(GiBFile());
  EXPECT_EQ(r.out, expected + "  " + to + "\n");
  EXPECT_EQ(testing::FileMd5(to), expected);
}

TEST_F(CopyTest, OneGiBLocalToLocal) {
  std::string to = dir + "/gib-local";
  ExpectCopied({"-s", "4", GiBFile(), to}, GiBFile(), to);
}

TEST_F(CopyTest, DevZeroToDevNullWithSize) {
  for (const std::string& sink : {std::string("/dev/null"), Remote("/dev/null")}) {
    auto r = RunBraid({"-v", "--size", "256M", "/dev/zero", sink});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("copied 256.00 MiB"), std::string::npos) << r.err;
  }
}

TEST_F(CopyTest, DeviceSourceWithoutSizeIsAUsageError) {
  auto r = RunBraid({"/dev/zero", "/dev/null"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find("--size"), std::string::npos) << r.err;
}

TEST_F(CopyTest, StdinToRemoteFileAndRemoteFileToStdout) {
  std::string src = dir + "/stdin-src";
  WritePatternFile(src, 3 * kBlock + 12345, 3);
  std::string data = testing::ReadWhole(src);
  std::string to = dir + "/from-stdin";
  auto r = RunBraid({"-s", "4", "-", Remote(to)}, {}, data);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string why;
  EXPECT_TRUE(SameContents(src, to, &why)) << why;

  auto back = RunBraid({"-s", "4", "-e", Remote(to), "-"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_TRUE(back.out == data) << "stdout differs: " << back.out.size() << " bytes";
  // With the data on stdout, the MD5 line goes to stderr.
  EXPECT_NE(back.err.find(testing::FileMd5(src)), std::string::npos) << back.err;
}

TEST_F(CopyTest, RecursiveTreeWithSpacesPushAndPull) {
  std::string tree = testing::MakeTree(
      dir + "/tree",
      {testing::TreeFile("a/one", 10), testing::TreeFile("a/b/two", 2 * kBlock + 3),
       testing::TreeFile("a/b/c/three", 0), testing::TreeDirectory("dir with spaces/empty dir"),
       testing::TreeFile("dir with spaces/file with spaces.dat", kBlock)});
  std::filesystem::create_directories(dir + "/pushed");
  auto push = RunBraid({"-r", tree, Remote(dir + "/pushed/")});
  ASSERT_EQ(push.exit_code, 0) << push.err;
  auto diff = RunProcess({"diff", "-r", tree, dir + "/pushed/tree"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;

  auto pull = RunBraid({"-r", Remote(tree), dir + "/pulled"});
  ASSERT_EQ(pull.exit_code, 0) << pull.err;
  auto diff2 = RunProcess({"diff", "-r", tree, dir + "/pulled"});
  EXPECT_EQ(diff2.exit_code, 0) << diff2.out << diff2.err;
}

TEST_F(CopyTest, TreeOntoAMissingDirectoryWithASlashBecomesItAsCpDoes) {
  std::string tree = testing::MakeTree(
      dir + "/run42", {testing::TreeFile("a/one", 10), testing::TreeFile("two", kBlock + 1)});
  // Missing, named with a slash: made, a copy of the tree (cp -r run42 new/).
  auto first = RunBraid({"-r", tree + "/", Remote(dir + "/new/")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto diff = RunProcess({"diff", "-r", tree, dir + "/new"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  // Now it exists: the tree goes inside it by name, and the source's slash changes nothing.
  auto second = RunBraid({"-r", tree + "/", Remote(dir + "/new/")});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  auto inside = RunProcess({"diff", "-r", tree, dir + "/new/run42"});
  EXPECT_EQ(inside.exit_code, 0) << inside.out << inside.err;
  // A file onto a missing directory is still refused: the slash asks for one.
  auto file = RunBraid({tree + "/two", Remote(dir + "/nowhere/")});
  EXPECT_EQ(file.exit_code, 8) << file.err;
  EXPECT_NE(file.err.find("No such directory"), std::string::npos) << file.err;
}

TEST_F(CopyTest, SeveralSourcesIntoADirectory) {
  WritePatternFile(dir + "/s1", 1000, 1);
  WritePatternFile(dir + "/s2", 2000, 2);
  std::filesystem::create_directories(dir + "/into");
  auto r = RunBraid({dir + "/s1", dir + "/s2", Remote(dir + "/into")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(dir + "/s1", dir + "/into/s1"));
  EXPECT_TRUE(SameContents(dir + "/s2", dir + "/into/s2"));
}

TEST_F(CopyTest, PreserveKeepsModeAndTimes) {
  std::string src = dir + "/preserved";
  WritePatternFile(src, 100, 9);
  ::chmod(src.c_str(), 0751);
  timespec times[2] = {{1000000000, 5}, {1000000000, 5}};
  ::utimensat(AT_FDCWD, src.c_str(), times, 0);
  std::string to = dir + "/preserved-copy";
  auto r = RunBraid({"-p", src, Remote(to)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(to.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0751u);
  EXPECT_EQ(st.st_mtim.tv_sec, 1000000000);
}

TEST_F(CopyTest, AnExistingFileIsBroughtUpToDateAndOtherKindsNeedForce) {
  std::string src = dir + "/f-src";
  std::string to = dir + "/f-dst";
  WritePatternFile(src, 5000, 1);
  // A regular file that differs is the copy asked for: replaced, as cp does.
  testing::WriteText(to, "old");
  ExpectCopied({src, Remote(to)}, src, to);
  ExpectCopied({"--no-resume", src, Remote(to)}, src, to);
  // A link in its place is another kind of entry: only -f replaces it.
  std::string link = dir + "/f-link";
  ASSERT_EQ(::symlink("f-src", link.c_str()), 0);
  auto r = RunBraid({src, Remote(link)});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable));
  EXPECT_NE(r.err.find("use -f to replace it"), std::string::npos) << r.err;
  ExpectCopied({"-f", src, Remote(link)}, src, link);
}

TEST_F(CopyTest, ATreeCopiedTwiceOverItsOwnLinks) {
  std::string tree = testing::MakeTree(dir + "/linked", {testing::TreeFile("f", 100)});
  ASSERT_EQ(::symlink("f", (tree + "/rel").c_str()), 0);
  ASSERT_EQ(::symlink((tree + "/f").c_str(), (tree + "/abs").c_str()), 0);
  std::filesystem::create_directories(dir + "/twice");
  for (int run = 0; run < 2; ++run) {
    auto r = RunBraid({"-r", tree, Remote(dir + "/twice/")});
    ASSERT_EQ(r.exit_code, 0) << "run " << run << ": " << r.err;
  }
  auto diff = RunProcess({"diff", "-r", "--no-dereference", tree, dir + "/twice/linked"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
}

}  // namespace
}  // namespace braid
