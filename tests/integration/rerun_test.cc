// Re-runs onto targets that already hold a version of the files, over the
// private sshd: a file is skipped only when proven the same (size and mtime
// to the nanosecond, as a -p copy leaves it), otherwise the two ends compare
// block hashes and only the blocks that differ travel.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
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
using testing::ReadWhole;
using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::WritePatternFile;
using testing::WriteText;

constexpr std::uint64_t kMiB = 1u << 20;

class RerunTest : public testing::SshdTest {
 protected:
  /// Runs braid with --json; expects success; returns the "end" object's document.
  JsonValue Run(std::vector<std::string> args) {
    args.insert(args.begin(), "--json");
    auto r = RunBraid(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    last_err = r.err;
    return JsonReader::Parse(r.out);
  }
  static std::uint64_t End(const JsonValue& doc, const char* key) {
    return static_cast<std::uint64_t>(doc["end"][key].number);
  }
  /// Overwrites one byte of `path` in place, then gives it back its times.
  static void ChangeOneByteKeepingTimes(const std::string& path, std::uint64_t at) {
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    int fd = ::open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0);
    char c = 0;
    bool done = ::pread(fd, &c, 1, static_cast<off_t>(at)) == 1;
    c = static_cast<char>(c ^ 0x5a);
    done = done && ::pwrite(fd, &c, 1, static_cast<off_t>(at)) == 1;
    ::close(fd);
    ASSERT_TRUE(done);
    timespec times[2] = {st.st_atim, st.st_mtim};
    ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
  }
  static ino_t Inode(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
  }

  std::string last_err;
};

TEST_F(RerunTest, ASameSizeFileThatDiffersIsUpdatedWithoutForceAndUnderE) {
  // The case: `braid s1 c; braid -e s2 c` exited 0 with c still s1.
  WriteText(dir + "/s1", "same size\n");
  WriteText(dir + "/s2", "SAME SIZE\n");
  const std::string c = dir + "/c";
  Run({dir + "/s1", Remote(c)});
  Run({"-e", dir + "/s2", Remote(c)});
  EXPECT_EQ(ReadWhole(c), "SAME SIZE\n");
  // Without -e, too: a copy made without -p is never trusted on its time.
  Run({dir + "/s1", Remote(c)});
  EXPECT_EQ(ReadWhole(c), "same size\n");
  EXPECT_FALSE(testing::Exists(c + ".braid-part"));
}

TEST_F(RerunTest, AnUnchangedFileIsComparedAndLeftInPlace) {
  const std::string src = dir + "/data.bin";
  const std::string dst = dir + "/copy.bin";
  WritePatternFile(src, 20 * kMiB, 4);
  Run({src, Remote(dst)});
  const ino_t before = Inode(dst);
  JsonValue doc = Run({src, Remote(dst)});
  EXPECT_NE(last_err.find("comparing 1 file already there block by block"), std::string::npos)
      << last_err;
  EXPECT_EQ(End(doc, "bytes"), 0u) << "nothing but the comparison travelled";
  EXPECT_EQ(End(doc, "bytes_unchanged"), 20 * kMiB);
  EXPECT_EQ(End(doc, "files_unchanged"), 1u);
  EXPECT_EQ(Inode(dst), before) << "the target was rewritten, not left alone";
  EXPECT_TRUE(SameContents(src, dst));
  // Under -e the file left in place is hashed at both ends all the same.
  doc = Run({"-e", src, Remote(dst)});
  EXPECT_EQ(End(doc, "bytes"), 0u);
  EXPECT_EQ(End(doc, "files_unchanged"), 1u);
  EXPECT_TRUE(doc["end"]["hash_verified"].boolean);
  EXPECT_NE(last_err.find(testing::FileMd5(src)), std::string::npos) << last_err;
  EXPECT_EQ(Inode(dst), before);
}

TEST_F(RerunTest, EmptyFilesCopiedWithoutTimesAreSkippedNotCompared) {
  const std::string tree = dir + "/tree";
  std::filesystem::create_directories(tree);
  for (const char* name : {"e1", "e2", "e3"}) WriteText(tree + "/" + name, "");
  WriteText(tree + "/five", "12345");
  const std::string dst = dir + "/dst";
  std::filesystem::create_directories(dst);
  Run({"-r", tree, Remote(dst + "/")});
  // Without -p the times differ, yet two empty files hold the same bytes.
  Run({"-r", tree, Remote(dst + "/")});
  EXPECT_NE(last_err.find("skipped 3 unchanged files"), std::string::npos) << last_err;
  EXPECT_NE(last_err.find("comparing 1 file"), std::string::npos) << last_err;
  // -e reports a hash for every file, so it compares them all.
  Run({"-r", "-e", tree, Remote(dst + "/")});
  EXPECT_NE(last_err.find("comparing 4 files"), std::string::npos) << last_err;
  EXPECT_EQ(RunProcess({"diff", "-r", tree, dst + "/tree"}).exit_code, 0);
}

TEST_F(RerunTest, OneChangedByteWithTimesPutBackIsFoundByDeltaAndByE) {
  const std::string src = dir + "/data.bin";
  const std::string dst = dir + "/copy.bin";
  WritePatternFile(src, 64 * kMiB, 5);
  Run({"-p", src, Remote(dst)});
  ChangeOneByteKeepingTimes(src, 40 * kMiB + 17);
  // The quick check (size and mtime to the nanosecond) cannot see it: as rsync.
  JsonValue doc = Run({"-p", src, Remote(dst)});
  EXPECT_NE(last_err.find("skipped 1 unchanged file"), std::string::npos) << last_err;
  EXPECT_FALSE(SameContents(src, dst));
  // --delta compares anyway, and sends the one 4 KiB piece the byte is in.
  doc = Run({"-p", "--delta", src, Remote(dst)});
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_GT(End(doc, "bytes"), 0u);
  EXPECT_EQ(End(doc, "bytes"), 4096u) << "not just the changed piece travelled";
  EXPECT_GE(End(doc, "bytes_unchanged"), 60 * kMiB);
  // -e never trusts the quick check either.
  ChangeOneByteKeepingTimes(src, 3);
  doc = Run({"-p", "-e", src, Remote(dst)});
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_EQ(End(doc, "bytes"), 4096u);
  EXPECT_TRUE(doc["end"]["hash_verified"].boolean);
}

TEST_F(RerunTest, ATargetLongerOrShorterThanTheSourceEndsAtTheSourcesSize) {
  const std::string src = dir + "/log";
  const std::string dst = dir + "/log.copy";
  WritePatternFile(src, 10 * kMiB + 5, 6);
  Run({src, Remote(dst)});
  // The source grew: the old blocks stay, the tail travels.
  WritePatternFile(dir + "/longer", 30 * kMiB, 6);
  std::filesystem::rename(dir + "/longer", src);
  JsonValue doc = Run({src, Remote(dst)});
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_GE(End(doc, "bytes_unchanged"), 9 * kMiB);
  // The source shrank: every block it has matches, and the target is cut.
  WritePatternFile(dir + "/shorter", 8 * kMiB, 6);
  std::filesystem::rename(dir + "/shorter", src);
  doc = Run({src, Remote(dst)});
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_EQ(End(doc, "bytes"), 0u);
}

TEST_F(RerunTest, APullUpdatesALocalTargetBlockByBlock) {
  const std::string src = dir + "/remote.bin";
  const std::string dst = dir + "/local.bin";
  WritePatternFile(src, 16 * kMiB, 7);
  Run({Remote(src), dst});
  ChangeOneByteKeepingTimes(src, 9 * kMiB);
  JsonValue doc = Run({Remote(src), dst});
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_LE(End(doc, "bytes"), 4 * kMiB);
}

TEST_F(RerunTest, ATreeRerunWithoutPreserveComparesEveryFileAndMovesNothing) {
  const std::string tree = dir + "/tree";
  std::filesystem::create_directories(tree + "/sub");
  for (int i = 0; i < 20; ++i) {
    WritePatternFile(tree + "/sub/f" + std::to_string(i), 3000 + static_cast<unsigned>(i), 30);
  }
  WritePatternFile(tree + "/big", 12 * kMiB, 31);
  const std::string dst = dir + "/dst";
  std::filesystem::create_directories(dst);
  Run({"-r", tree, Remote(dst + "/")});
  JsonValue doc = Run({"-r", tree, Remote(dst + "/")});
  EXPECT_EQ(End(doc, "bytes"), 0u);
  EXPECT_EQ(End(doc, "files_unchanged"), 21u);
  // One small file changes: only it is sent.
  WriteText(tree + "/sub/f3", std::string(3003, 'q'));
  doc = Run({"-r", tree, Remote(dst + "/")});
  EXPECT_EQ(End(doc, "bytes"), 3003u);
  EXPECT_EQ(End(doc, "files_unchanged"), 20u);
  auto diff = RunProcess({"diff", "-r", tree, dst + "/tree"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out;
}

TEST_F(RerunTest, OmitExistingAndSizeOnlySkipWithoutLookingInside) {
  WriteText(dir + "/s1", "first\n");
  WriteText(dir + "/s2", "again\n");
  const std::string c = dir + "/c";
  Run({dir + "/s1", Remote(c)});
  Run({"-O", dir + "/s2", Remote(c)});
  EXPECT_EQ(ReadWhole(c), "first\n");
  Run({"--size-only", dir + "/s2", Remote(c)});
  EXPECT_EQ(ReadWhole(c), "first\n");
  Run({dir + "/s2", Remote(c)});
  EXPECT_EQ(ReadWhole(c), "again\n");
  auto r = RunBraid({"--delta", "-O", dir + "/s1", Remote(c)});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find("choose one"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace braid
