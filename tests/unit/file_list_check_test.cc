#include "agent/file_list_check.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "braid/error.h"
#include "braid/file_entry.h"
#include "thrown_code.h"

namespace braid {
namespace {

FileEntry Entry(std::uint32_t id, std::string path, FileKind kind = FileKind::kRegular,
                std::uint16_t top = 0) {
  FileEntry e;
  e.id = id;
  e.path = std::move(path);
  e.kind = kind;
  e.top = top;
  return e;
}

TEST(FileListCheckTest, AcceptsTheFilesAskedForInOrder) {
  FileListCheck check({"/data/a.bin", "rel/b.txt/"}, false);
  EXPECT_NO_THROW(check.Check(Entry(0, "a.bin")));
  EXPECT_NO_THROW(check.Check(Entry(1, "b.txt", FileKind::kRegular, 1)));
}

TEST(FileListCheckTest, RejectsANameThatWasNotAskedFor) {
  FileListCheck check({"/data/a.bin"}, false);
  EXPECT_EQ(ThrownCode([&] { check.Check(Entry(0, ".bashrc")); }), ErrorCode::kProtocol);
}

TEST(FileListCheckTest, RejectsIdsOutOfOrder) {
  FileListCheck check({"a", "b"}, false);
  EXPECT_EQ(ThrownCode([&] { check.Check(Entry(1, "b", FileKind::kRegular, 1)); }),
            ErrorCode::kProtocol);
}

TEST(FileListCheckTest, RejectsATopIndexBeyondTheSources) {
  FileListCheck check({"a"}, false);
  EXPECT_EQ(ThrownCode([&] { check.Check(Entry(0, "a", FileKind::kRegular, 1)); }),
            ErrorCode::kProtocol);
}

TEST(FileListCheckTest, TreesOnlyWithRecursive) {
  FileListCheck plain({"dir"}, false);
  EXPECT_EQ(ThrownCode([&] { plain.Check(Entry(0, "dir", FileKind::kDirectory)); }),
            ErrorCode::kProtocol);
  FileListCheck recursive({"dir"}, true);
  EXPECT_NO_THROW(recursive.Check(Entry(0, "dir", FileKind::kDirectory)));
  EXPECT_NO_THROW(recursive.Check(Entry(1, "dir/x")));
  EXPECT_EQ(ThrownCode([&] { recursive.Check(Entry(2, "other/x")); }), ErrorCode::kProtocol);
}

TEST(FileListCheckTest, ADotSourceLearnsItsNameFromTheFirstEntry) {
  FileListCheck check({"."}, true);
  EXPECT_NO_THROW(check.Check(Entry(0, "home", FileKind::kDirectory)));
  EXPECT_NO_THROW(check.Check(Entry(1, "home/f")));
  EXPECT_EQ(ThrownCode([&] { check.Check(Entry(2, "etc/passwd")); }), ErrorCode::kProtocol);
}

TEST(FileListCheckTest, StdinIsNamedStdin) {
  FileListCheck check({"-"}, false);
  EXPECT_NO_THROW(check.Check(Entry(0, "stdin", FileKind::kStream)));
}

TEST(FileListCheckTest, ARemoteGlobTakesEachNameItMatches) {
  FileListCheck check({"/data/run*", "one.txt"}, false, true);
  EXPECT_NO_THROW(check.Check(Entry(0, "run1")));
  EXPECT_NO_THROW(check.Check(Entry(1, "run2.log")));
  EXPECT_NO_THROW(check.Check(Entry(2, "one.txt", FileKind::kRegular, 1)));
}

TEST(FileListCheckTest, ARemoteGlobRefusesNamesItDoesNotMatch) {
  // scp's CVE-2019-6111: a source must not send what the pattern cannot name.
  for (const char* name : {".bashrc", "other", "..", ".", "xrun1"}) {
    FileListCheck check({"/data/run*"}, true, true);
    EXPECT_EQ(ThrownCode([&] { check.Check(Entry(0, name)); }), ErrorCode::kProtocol) << name;
  }
  // A leading dot only when the pattern says so, as glob(3) matches.
  FileListCheck dots({"~/.conf*"}, false, true);
  EXPECT_NO_THROW(dots.Check(Entry(0, ".config")));
  // Nested names stay under a match, and only with -r.
  FileListCheck tree({"d*"}, true, true);
  EXPECT_NO_THROW(tree.Check(Entry(0, "dir", FileKind::kDirectory)));
  EXPECT_NO_THROW(tree.Check(Entry(1, "dir/x")));
  EXPECT_EQ(ThrownCode([&] { tree.Check(Entry(2, "etc/passwd")); }), ErrorCode::kProtocol);
}

TEST(FileListCheckTest, AGlobCharacterIsLiteralInALocalPath) {
  FileListCheck check({"run*"}, false, false);
  EXPECT_NO_THROW(check.Check(Entry(0, "run*")));
  FileListCheck again({"run*"}, false, false);
  EXPECT_EQ(ThrownCode([&] { again.Check(Entry(0, "run1")); }), ErrorCode::kProtocol);
}

TEST(FileListCheckTest, ARemoteHomeLearnsItsName) {
  FileListCheck home({"~"}, true, true);
  EXPECT_NO_THROW(home.Check(Entry(0, "alice", FileKind::kDirectory)));
  FileListCheck in_home({"~/notes.txt"}, false, true);
  EXPECT_NO_THROW(in_home.Check(Entry(0, "notes.txt")));
  // Locally "~" is a name the shell left alone.
  FileListCheck local({"~"}, false, false);
  EXPECT_EQ(ThrownCode([&] { local.Check(Entry(0, "alice")); }), ErrorCode::kProtocol);
}

}  // namespace
}  // namespace braid
