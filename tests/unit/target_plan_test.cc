#include "session/target_plan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/error.h"
#include "braid/file_entry.h"

namespace braid {
namespace {

using Mode = TargetPlan::Mode;

const TargetInfo kMissing{false, false, false, ""};
const TargetInfo kDirectory{true, true, false, ""};
const TargetInfo kFile{true, false, false, ""};
const TargetInfo kStreamTarget{true, false, true, ""};

FileEntry Entry(std::string path, FileKind kind = FileKind::kRegular, std::uint16_t top = 0) {
  FileEntry e;
  e.path = std::move(path);
  e.kind = kind;
  e.top = top;
  return e;
}

/// One directory tree: top/, top/sub/, top/sub/f, top/g.
std::vector<FileEntry> Tree() {
  return {Entry("top", FileKind::kDirectory), Entry("top/sub", FileKind::kDirectory),
          Entry("top/sub/f"), Entry("top/g"), Entry("top/link", FileKind::kSymlink)};
}

/// The error PlanTarget throws; fails the test when it plans instead.
BraidError PlanError(const std::string& target, const TargetInfo& info, std::size_t top_count,
                     const std::vector<FileEntry>& entries, const std::string& host = "") {
  try {
    TargetPlan plan = PlanTarget(target, info, top_count, entries, host);
    ADD_FAILURE() << "planned mode " << static_cast<int>(plan.mode) << " for " << target;
  } catch (const BraidError& e) {
    return e;
  }
  return BraidError(ErrorCode::kOk, "");
}

TEST(TargetPlanTest, IntoExistingDirectory) {
  TargetPlan plan = PlanTarget("/dst", kDirectory, 1, {Entry("file.txt")}, "");
  EXPECT_EQ(plan.mode, Mode::kIntoDirectory);
  EXPECT_EQ(plan.base, "/dst");
  EXPECT_EQ(FinalPath(plan, Entry("file.txt")), "/dst/file.txt");
}

TEST(TargetPlanTest, TreeIntoExistingDirectoryKeepsTopName) {
  std::vector<FileEntry> tree = Tree();
  TargetPlan plan = PlanTarget("/dst", kDirectory, 1, tree, "");
  ASSERT_EQ(plan.mode, Mode::kIntoDirectory);
  EXPECT_EQ(FinalPath(plan, tree[0]), "/dst/top");
  EXPECT_EQ(FinalPath(plan, tree[1]), "/dst/top/sub");
  EXPECT_EQ(FinalPath(plan, tree[2]), "/dst/top/sub/f");
  EXPECT_EQ(FinalPath(plan, tree[3]), "/dst/top/g");
}

TEST(TargetPlanTest, SeveralSourcesIntoExistingDirectory) {
  std::vector<FileEntry> entries = {Entry("a", FileKind::kRegular, 0),
                                    Entry("b", FileKind::kDirectory, 1),
                                    Entry("b/c", FileKind::kRegular, 1)};
  TargetPlan plan = PlanTarget("dst", kDirectory, 2, entries, "");
  ASSERT_EQ(plan.mode, Mode::kIntoDirectory);
  EXPECT_EQ(FinalPath(plan, entries[0]), "dst/a");
  EXPECT_EQ(FinalPath(plan, entries[1]), "dst/b");
  EXPECT_EQ(FinalPath(plan, entries[2]), "dst/b/c");
}

TEST(TargetPlanTest, TrailingSlashesOnExistingDirectoryAreStripped) {
  TargetPlan plan = PlanTarget("/dst///", kDirectory, 1, {Entry("f")}, "");
  EXPECT_EQ(plan.mode, Mode::kIntoDirectory);
  EXPECT_EQ(plan.base, "/dst");
  EXPECT_EQ(FinalPath(plan, Entry("f")), "/dst/f");
}

TEST(TargetPlanTest, RootDirectory) {
  for (const char* target : {"/", "//", "///"}) {
    TargetPlan plan = PlanTarget(target, kDirectory, 1, {Entry("f")}, "");
    EXPECT_EQ(plan.mode, Mode::kIntoDirectory) << target;
    EXPECT_EQ(plan.base, "/") << target;
    EXPECT_EQ(FinalPath(plan, Entry("f")), "/f") << target;
    EXPECT_EQ(FinalPath(plan, Entry("top/sub/f")), "/top/sub/f") << target;
  }
}

TEST(TargetPlanTest, RelativeDirectory) {
  TargetPlan plan = PlanTarget(".", kDirectory, 1, {Entry("f")}, "");
  EXPECT_EQ(plan.mode, Mode::kIntoDirectory);
  EXPECT_EQ(FinalPath(plan, Entry("f")), "./f");
}

TEST(TargetPlanTest, SingleFileAsMissingTargetIsRenamed) {
  TargetPlan plan = PlanTarget("/dst/new.bin", kMissing, 1, {Entry("old.bin")}, "");
  EXPECT_EQ(plan.mode, Mode::kAsTarget);
  EXPECT_EQ(plan.base, "/dst/new.bin");
  EXPECT_EQ(FinalPath(plan, Entry("old.bin")), "/dst/new.bin");
}

TEST(TargetPlanTest, SingleFileOverExistingFile) {
  TargetPlan plan = PlanTarget("/dst/existing", kFile, 1, {Entry("src")}, "");
  EXPECT_EQ(plan.mode, Mode::kAsTarget);
  EXPECT_EQ(FinalPath(plan, Entry("src")), "/dst/existing");
}

TEST(TargetPlanTest, SingleTreeAsMissingTargetReplacesTopName) {
  std::vector<FileEntry> tree = Tree();
  TargetPlan plan = PlanTarget("/backup/copy", kMissing, 1, tree, "");
  ASSERT_EQ(plan.mode, Mode::kAsTarget);
  EXPECT_EQ(FinalPath(plan, tree[0]), "/backup/copy");
  EXPECT_EQ(FinalPath(plan, tree[1]), "/backup/copy/sub");
  EXPECT_EQ(FinalPath(plan, tree[2]), "/backup/copy/sub/f");
  EXPECT_EQ(FinalPath(plan, tree[3]), "/backup/copy/g");
  EXPECT_EQ(FinalPath(plan, tree[4]), "/backup/copy/link");
}

TEST(TargetPlanTest, ATreeGoesOnInTheDirectoryAnInterruptedCopyOfItMade) {
  std::vector<FileEntry> tree = Tree();
  TargetInfo marked{true, true, false, "top"};
  TargetPlan plan = PlanTarget("/backup/copy/", marked, 1, tree, "");
  ASSERT_EQ(plan.mode, Mode::kAsTarget);
  EXPECT_EQ(FinalPath(plan, tree[0]), "/backup/copy");
  EXPECT_EQ(FinalPath(plan, tree[2]), "/backup/copy/sub/f");
  EXPECT_EQ(TreeRootMarkPath(plan.base), "/backup/copy.braid-tree");
}

TEST(TargetPlanTest, AMarkOfAnotherTreeOrOfOneAmongSeveralChangesNothing) {
  std::vector<FileEntry> tree = Tree();
  TargetInfo other{true, true, false, "elsewhere"};
  EXPECT_EQ(PlanTarget("/dst", other, 1, tree, "").mode, Mode::kIntoDirectory);
  TargetInfo marked{true, true, false, "top"};
  EXPECT_EQ(PlanTarget("/dst", marked, 2, tree, "").mode, Mode::kIntoDirectory);
  std::vector<FileEntry> file = {Entry("top")};
  EXPECT_EQ(PlanTarget("/dst", marked, 1, file, "").mode, Mode::kIntoDirectory);
}

TEST(TargetPlanTest, TreeOntoExistingFileIsRejected) {
  BraidError e = PlanError("/dst/file", kFile, 1, Tree());
  EXPECT_EQ(e.code(), ErrorCode::kTargetUnwritable);
}

TEST(TargetPlanTest, TrailingSlashOnMissingDirectoryIsRejected) {
  BraidError e = PlanError("/dst/missing/", kMissing, 1, {Entry("f")});
  EXPECT_EQ(e.code(), ErrorCode::kTargetUnwritable);
  EXPECT_NE(std::string(e.what()).find("/dst/missing"), std::string::npos) << e.what();
}

TEST(TargetPlanTest, TreeOntoMissingDirectoryWithTrailingSlashBecomesIt) {
  // As cp -r run42 newdir/ does: newdir is made, a copy of run42.
  TargetPlan plan = PlanTarget("newdir/", kMissing, 1, Tree(), "");
  EXPECT_EQ(plan.mode, TargetPlan::Mode::kAsTarget);
  EXPECT_EQ(plan.base, "newdir");
  // Two trees still need the directory to exist.
  std::vector<FileEntry> two = Tree();
  two.push_back(Entry("other", FileKind::kDirectory, 1));
  EXPECT_EQ(PlanError("newdir/", kMissing, 2, two).code(), ErrorCode::kTargetUnwritable);
}

TEST(TargetPlanTest, TrailingSlashOnExistingFileIsRejected) {
  EXPECT_EQ(PlanError("/dst/file/", kFile, 1, {Entry("f")}).code(), ErrorCode::kTargetUnwritable);
}

TEST(TargetPlanTest, AGlobsMatchesCountAsSeveralSources) {
  // One SRC (a remote glob) whose list holds two top-level files: onto one
  // name they would overwrite each other, so it takes a directory.
  const std::vector<FileEntry> matches = {Entry("run1"), Entry("run2")};
  BraidError e = PlanError("/dst/file", kMissing, 1, matches);
  EXPECT_EQ(e.code(), ErrorCode::kTargetUnwritable);
  EXPECT_NE(std::string(e.what()).find("needs a target directory"), std::string::npos);
  EXPECT_EQ(PlanTarget("/dst", kDirectory, 1, matches, "").mode, Mode::kIntoDirectory);
  // A tree is one top-level entry, however deep.
  EXPECT_EQ(PlanTarget("/backup/copy", kMissing, 1, Tree(), "").mode, Mode::kAsTarget);
}

TEST(TargetPlanTest, SeveralSourcesOntoNonDirectoryAreRejected) {
  std::vector<FileEntry> two = {Entry("a", FileKind::kRegular, 0),
                                Entry("b", FileKind::kRegular, 1)};
  EXPECT_EQ(PlanError("/dst/file", kFile, 2, two).code(), ErrorCode::kTargetUnwritable);
  EXPECT_EQ(PlanError("/dst/missing", kMissing, 2, two).code(), ErrorCode::kTargetUnwritable);
}

TEST(TargetPlanTest, ErrorNamesHostAndPath) {
  std::vector<FileEntry> two = {Entry("a", FileKind::kRegular, 0),
                                Entry("b", FileKind::kRegular, 1)};
  BraidError e = PlanError("/dst/x", kMissing, 2, two, "server1");
  EXPECT_EQ(e.code(), ErrorCode::kTargetUnwritable);
  EXPECT_NE(std::string(e.what()).find("server1:/dst/x"), std::string::npos) << e.what();
}

TEST(TargetPlanTest, EmptyTargetIsAUsageError) {
  EXPECT_EQ(PlanError("", kMissing, 1, {Entry("f")}).code(), ErrorCode::kUsage);
}

TEST(TargetPlanTest, StreamTargetWithOneFile) {
  TargetPlan plan = PlanTarget("/dev/stdout", kStreamTarget, 1, {Entry("f")}, "");
  EXPECT_EQ(plan.mode, Mode::kStream);
  EXPECT_EQ(plan.base, "/dev/stdout");
  EXPECT_EQ(FinalPath(plan, Entry("f")), "/dev/stdout");
}

TEST(TargetPlanTest, StreamTargetWithAStreamSource) {
  TargetPlan plan =
      PlanTarget("/tmp/fifo", kStreamTarget, 1, {Entry("stdin", FileKind::kStream)}, "");
  EXPECT_EQ(plan.mode, Mode::kStream);
}

TEST(TargetPlanTest, StreamTargetWithATreeIsRejected) {
  EXPECT_EQ(PlanError("/dev/stdout", kStreamTarget, 1, Tree()).code(),
            ErrorCode::kTargetUnwritable);
  // Even a directory with a single file in it.
  std::vector<FileEntry> one_in_dir = {Entry("d", FileKind::kDirectory), Entry("d/f")};
  EXPECT_EQ(PlanError("/dev/stdout", kStreamTarget, 1, one_in_dir).code(),
            ErrorCode::kTargetUnwritable);
  EXPECT_EQ(PlanError("/dev/stdout", kStreamTarget, 1, {Entry("l", FileKind::kSymlink)}).code(),
            ErrorCode::kTargetUnwritable);
}

TEST(TargetPlanTest, StreamTargetWithTwoFilesIsRejected) {
  std::vector<FileEntry> two = {Entry("a", FileKind::kRegular, 0),
                                Entry("b", FileKind::kRegular, 1)};
  EXPECT_EQ(PlanError("/dev/stdout", kStreamTarget, 2, two).code(), ErrorCode::kTargetUnwritable);
  EXPECT_EQ(PlanError("/dev/stdout", kStreamTarget, 1, two).code(), ErrorCode::kTargetUnwritable);
}

TEST(TargetPlanTest, StreamTargetWithNothingIsRejected) {
  EXPECT_EQ(PlanError("/dev/stdout", kStreamTarget, 1, {}).code(), ErrorCode::kTargetUnwritable);
}

TEST(TargetPlanTest, PartialPath) {
  EXPECT_EQ(PartialPath("/dst/file.bin"), "/dst/file.bin.braid-part");
  EXPECT_EQ(PartialPath("rel"), "rel.braid-part");
  EXPECT_NE(PartialPath("/a/b"), "/a/b");
  // Beside the final file: same directory.
  std::string p = PartialPath("/x/y/z");
  EXPECT_EQ(p.rfind('/'), std::string("/x/y/z").rfind('/'));
}

}  // namespace
}  // namespace braid
