#include "sink/sink_files.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "braid/error.h"
#include "fake_sink_file_system.h"
#include "sink_entry.h"
#include "thrown_code.h"

namespace braid {
namespace {

using testing::FakeSinkFileSystem;
using Missing = std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint64_t>>;

/// Everything lands inside the fake's directory /t.
TargetPlan IntoT() { return TargetPlan{TargetPlan::Mode::kIntoDirectory, "/t"}; }

std::vector<std::uint8_t> Bytes(std::size_t n, std::uint8_t fill) {
  return std::vector<std::uint8_t>(n, fill);
}

class SinkFilesTest : public ::testing::Test {
 protected:
  /// One regular file "f" of `size` bytes under /t.
  SinkFiles& OneFile(std::uint64_t size) { return Make({Entry(0, FileKind::kRegular, "f", size)}); }
  /// Files "a" of `first` bytes and "b" of 3, with room for one of them in flight,
  /// and the first 3 bytes of "a" written.
  void TwoFilesRoomForOne(std::uint64_t first) {
    Make({Entry(0, FileKind::kRegular, "a", first), Entry(1, FileKind::kRegular, "b", 3)});
    files_->Prepare(false);
    files_->BoundInFlight(1);
    Write(0, 0, 3, 'a');
  }
  SinkFiles& Make(std::vector<FileEntry> entries, bool preserve = false) {
    files_ = std::make_unique<SinkFiles>(std::move(entries), IntoT(), "sinkhost", preserve, fs_);
    return *files_;
  }
  void Write(std::uint32_t id, std::uint64_t offset, std::uint32_t length, std::uint8_t fill) {
    auto data = Bytes(length, fill);
    files_->CheckBlock(id, offset, length);
    files_->WriteBlock(id, offset, data.data(), length);
  }
  static std::string Message(const std::function<void()>& fn) {
    try {
      fn();
    } catch (const BraidError& e) {
      return e.what();
    }
    return "";
  }

  FakeSinkFileSystem fs_;
  std::unique_ptr<SinkFiles> files_;
};

TEST_F(SinkFilesTest, NamesThatLeaveTheTargetAreRejectedBeforeAnythingIsTouched) {
  for (const char* bad : {"../escape", "a/../../escape", "/etc/passwd", "a//b", "./a", "a/.", ""}) {
    EXPECT_EQ(ThrownCode([&] { Make({Entry(0, FileKind::kRegular, bad, 1)}); }),
              ErrorCode::kProtocol)
        << "'" << bad << "'";
  }
  EXPECT_TRUE(fs_.log.empty());
  EXPECT_NO_THROW(Make({Entry(0, FileKind::kRegular, "a..b/..c", 1)}));
}

TEST_F(SinkFilesTest, ALinkWhereTheListHasADirectoryIsNeverCreatedThrough) {
  fs_.AddDirectory("/elsewhere");
  fs_.AddLink("/t/d", "/elsewhere");
  Make({Entry(0, FileKind::kDirectory, "d"), Entry(1, FileKind::kRegular, "d/f", 3)});
  EXPECT_EQ(ThrownCode([&] { files_->Prepare(true); }), ErrorCode::kTargetUnwritable);
  EXPECT_EQ(fs_.Changes("/elsewhere"), 0);
  EXPECT_EQ(fs_.Changes("/t/d"), 0) << "-f replaces files, never a link in the path";
  EXPECT_EQ(fs_.At("/t/d").type, 'l');
}

TEST_F(SinkFilesTest, PrepareCreatesDirectoriesAndLinks) {
  auto link = Entry(2, FileKind::kSymlink, "d/l");
  link.link_target = "../f";
  Make({Entry(0, FileKind::kDirectory, "d"), Entry(1, FileKind::kRegular, "d/f", 3), link});
  files_->Prepare(false);
  EXPECT_EQ(fs_.At("/t/d").type, 'd');
  EXPECT_EQ(fs_.At("/t/d/l").link, "../f");
  EXPECT_FALSE(fs_.Has("/t/d/f")) << "a file is created by its first block";
}

TEST_F(SinkFilesTest, AnExistingRegularFileIsReplacedByTheCompleteCopy) {
  fs_.AddFile("/t/f", "old");
  OneFile(3);
  EXPECT_NO_THROW(files_->Prepare(false));
  Write(0, 0, 3, 'n');
  EXPECT_EQ(fs_.At("/t/f").data, "old") << "replaced only once the copy is complete";
  files_->EndFile(0, 3, std::nullopt);
  files_->Commit(0, false);
  EXPECT_EQ(fs_.At("/t/f").data, "nnn");
  EXPECT_FALSE(fs_.Has("/t/f.braid-part"));
}

TEST_F(SinkFilesTest, AnEntryOfAnotherKindIsReplacedOnlyWithForce) {
  fs_.AddLink("/t/f", "/elsewhere");
  OneFile(3);
  EXPECT_EQ(ThrownCode([&] { files_->Prepare(false); }), ErrorCode::kTargetUnwritable);
  std::string why = Message([&] { files_->Prepare(false); });
  EXPECT_NE(why.find("sinkhost"), std::string::npos) << why;
  EXPECT_NE(why.find("/t/f"), std::string::npos) << why;
  EXPECT_NE(why.find("use -f to replace it"), std::string::npos) << why;
  EXPECT_EQ(fs_.At("/t/f").type, 'l');

  EXPECT_NO_THROW(files_->Prepare(true));
  Write(0, 0, 3, 'n');
  files_->EndFile(0, 3, std::nullopt);
  files_->Commit(0, true);
  EXPECT_EQ(fs_.At("/t/f").data, "nnn");
  EXPECT_FALSE(fs_.Has("/t/f.braid-part"));
}

TEST_F(SinkFilesTest, ALinkTakingTheNameDuringTheCopyIsNotReplacedWithoutForce) {
  OneFile(2);
  files_->Prepare(false);
  Write(0, 0, 2, 'x');
  files_->EndFile(0, 2, std::nullopt);
  fs_.AddLink("/t/f", "theirs");
  EXPECT_EQ(ThrownCode([&] { files_->Commit(0, false); }), ErrorCode::kTargetUnwritable);
  EXPECT_EQ(fs_.At("/t/f").link, "theirs");
  EXPECT_EQ(fs_.At("/t/f.braid-part").data, "xx");
}

TEST_F(SinkFilesTest, ARegularFileTakingTheNameDuringTheCopyIsReplaced) {
  // As one there at the start would have been.
  OneFile(2);
  files_->Prepare(false);
  Write(0, 0, 2, 'x');
  files_->EndFile(0, 2, std::nullopt);
  fs_.AddFile("/t/f", "theirs");
  files_->Commit(0, false);
  EXPECT_EQ(fs_.At("/t/f").data, "xx");
  EXPECT_FALSE(fs_.Has("/t/f.braid-part"));
}

TEST_F(SinkFilesTest, ALinkThatAlreadyMatchesIsKeptAndAnotherLinkReplaced) {
  fs_.AddLink("/t/same", "../f");
  fs_.AddLink("/t/other", "old-target");
  FileEntry same = Entry(0, FileKind::kSymlink, "same");
  same.link_target = "../f";
  FileEntry other = Entry(1, FileKind::kSymlink, "other");
  other.link_target = "new-target";
  Make({same, other});
  EXPECT_NO_THROW(files_->Prepare(false)) << "a re-run meets its own links";
  EXPECT_EQ(fs_.Changes("/t/same"), 0);
  EXPECT_EQ(fs_.At("/t/other").link, "new-target");
  EXPECT_TRUE(files_->committed(0));
  EXPECT_TRUE(files_->committed(1));
}

TEST_F(SinkFilesTest, AHardLinkMustNameARegularFileListedBeforeIt) {
  FileEntry file = Entry(0, FileKind::kRegular, "f", 10);
  FileEntry link = Entry(1, FileKind::kHardLink, "g");
  link.link_target = "f";
  Make({file, link});
  EXPECT_NO_THROW(files_->Prepare(false));

  FileEntry early = Entry(0, FileKind::kHardLink, "g");
  early.link_target = "f";
  Make({early, Entry(1, FileKind::kRegular, "f", 10)});
  EXPECT_EQ(ThrownCode([&] { files_->Prepare(false); }), ErrorCode::kProtocol);

  FileEntry to_directory = Entry(1, FileKind::kHardLink, "g");
  to_directory.link_target = "d";
  Make({Entry(0, FileKind::kDirectory, "d"), to_directory});
  EXPECT_EQ(ThrownCode([&] { files_->Prepare(false); }), ErrorCode::kProtocol);

  FileEntry outside = Entry(1, FileKind::kHardLink, "g");
  outside.link_target = "not-in-the-list";
  Make({file, outside});
  EXPECT_EQ(ThrownCode([&] { files_->Prepare(false); }), ErrorCode::kProtocol);
}

TEST_F(SinkFilesTest, AHardLinkOverAnotherKindOfEntryNeedsForce) {
  fs_.AddDirectory("/t/g");
  FileEntry link = Entry(1, FileKind::kHardLink, "g");
  link.link_target = "f";
  Make({Entry(0, FileKind::kRegular, "f", 10), link});
  EXPECT_NE(Message([&] { files_->Prepare(false); }).find("/t/g"), std::string::npos);
}

TEST_F(SinkFilesTest, ADirectoryInTheWayOfAFileIsAnError) {
  fs_.AddDirectory("/t/f");
  OneFile(3);
  EXPECT_EQ(ThrownCode([&] { files_->Prepare(true); }), ErrorCode::kTargetUnwritable);
}

TEST_F(SinkFilesTest, BlocksMustLieInsideTheAnnouncedSize) {
  OneFile(100);
  EXPECT_NO_THROW(files_->CheckBlock(0, 0, 100));
  EXPECT_NO_THROW(files_->CheckBlock(0, 99, 1));
  EXPECT_EQ(ThrownCode([&] { files_->CheckBlock(0, 99, 2); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files_->CheckBlock(0, 100, 1); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files_->CheckBlock(0, ~0ull - 10, 5); }), ErrorCode::kProtocol);
  EXPECT_NE(Message([&] { files_->CheckBlock(0, 50, 51); }).find("past the announced size"),
            std::string::npos);
  EXPECT_FALSE(fs_.Has("/t/f.braid-part")) << "checks write nothing";
}

TEST_F(SinkFilesTest, BlocksForUnknownFilesDirectoriesAndLinksAreRejected) {
  Make({Entry(0, FileKind::kDirectory, "d"), Entry(1, FileKind::kRegular, "d/f", 10)});
  EXPECT_EQ(ThrownCode([&] { files_->CheckBlock(2, 0, 1); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files_->CheckBlock(0, 0, 1); }), ErrorCode::kProtocol);
  auto data = Bytes(1, 'a');
  EXPECT_EQ(ThrownCode([&] { files_->WriteBlock(7, 0, data.data(), 1); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files_->EndFile(0, 0, std::nullopt); }), ErrorCode::kProtocol);
}

TEST_F(SinkFilesTest, AStreamOfUnknownSizeIsBoundedByItsEndOnceKnown) {
  Make({Entry(0, FileKind::kRegular, "s", kUnknownSize)});
  EXPECT_NO_THROW(files_->CheckBlock(0, 1u << 30, 4096));
  files_->RecordStreamed(0, 0, 10);
  files_->EndFile(0, 10, std::nullopt);
  EXPECT_EQ(ThrownCode([&] { files_->CheckBlock(0, 5, 6); }), ErrorCode::kProtocol);
  EXPECT_NO_THROW(files_->CheckBlock(0, 5, 5));
}

TEST_F(SinkFilesTest, ACompareThatFindsEveryBlockTheSameLeavesTheTargetAlone) {
  fs_.AddFile("/t/f", "aaabbb");
  OneFile(6);
  files_->Prepare(false);
  files_->MarkCompared(0, 6);
  files_->RecordSame(0, 3, 3);
  files_->RecordSame(0, 0, 3);
  files_->RecordSame(0, 0, 3);  // sent again after a lost stream: nothing new
  files_->EndFile(0, 6, std::nullopt);
  EXPECT_TRUE(files_->complete(0));
  EXPECT_TRUE(files_->Unchanged(0));
  EXPECT_EQ(files_->bytes_received(), 6u);
  files_->MakeDurable({0});
  files_->Commit(0, false);
  EXPECT_TRUE(files_->committed(0));
  EXPECT_EQ(fs_.At("/t/f").data, "aaabbb");
  EXPECT_FALSE(fs_.Has("/t/f.braid-part"));
  EXPECT_EQ(fs_.Changes("/t/f"), 0) << "nothing written, created or renamed";
}

TEST_F(SinkFilesTest, WithPAnUnchangedFileGetsOnlyTheAttributesThatDiffer) {
  fs_.AddFile("/t/f", "aaa");
  fs_.nodes["/t/f"]->mtime = {1700000000, 5};
  FileEntry e = Entry(0, FileKind::kRegular, "f", 3);
  e.mtime_sec = 1700000000;
  e.mtime_nsec = 5;
  auto commit_unchanged = [&] {
    Make({e}, /*preserve=*/true);
    files_->Prepare(false);
    files_->MarkCompared(0, 3);
    files_->RecordSame(0, 0, 3);
    files_->EndFile(0, 3, std::nullopt);
    ASSERT_TRUE(files_->Unchanged(0));
    files_->Commit(0, false);
    EXPECT_TRUE(files_->committed(0));
  };
  commit_unchanged();
  EXPECT_EQ(fs_.attribute_changes, 0) << "mode and time already the source's: nothing changed";
  // The source's time moved on (a touch): the time alone is put right.
  e.mtime_nsec = 6;
  commit_unchanged();
  EXPECT_EQ(fs_.attribute_changes, 1);
  EXPECT_EQ(fs_.At("/t/f").mtime.tv_nsec, 6);
  EXPECT_EQ(fs_.At("/t/f").mode, 0644u);
  // And a mode that differs: the mode alone.
  e.mode = 0600;
  commit_unchanged();
  EXPECT_EQ(fs_.attribute_changes, 2);
  EXPECT_EQ(fs_.At("/t/f").mode, 0600u);
  EXPECT_EQ(fs_.At("/t/f").data, "aaa");
}

TEST_F(SinkFilesTest, ABlockThatDiffersIsWrittenIntoACopyOfTheTarget) {
  fs_.AddFile("/t/f", "aaabbbccc");
  OneFile(9);
  files_->Prepare(false);
  files_->MarkCompared(0, 9);
  files_->RecordSame(0, 0, 3);
  Write(0, 3, 3, 'z');
  EXPECT_EQ(fs_.At("/t/f.braid-part").data, "aaazzzccc") << "the rest copied from the target";
  EXPECT_EQ(fs_.At("/t/f").data, "aaabbbccc") << "replaced only once complete";
  files_->RecordSame(0, 6, 3);  // after the copy: nothing more to do
  files_->EndFile(0, 9, std::nullopt);
  EXPECT_FALSE(files_->Unchanged(0));
  files_->Commit(0, false);
  EXPECT_EQ(fs_.At("/t/f").data, "aaazzzccc");
  EXPECT_FALSE(fs_.Has("/t/f.braid-part"));
}

TEST_F(SinkFilesTest, ACompareOfALongerTargetCutsItToTheSourcesSize) {
  fs_.AddFile("/t/f", "aaabbbccc");
  OneFile(6);
  files_->Prepare(false);
  files_->MarkCompared(0, 9);
  files_->RecordSame(0, 0, 3);
  files_->RecordSame(0, 3, 3);
  files_->EndFile(0, 6, std::nullopt);
  EXPECT_FALSE(files_->Unchanged(0)) << "every block the same, but the target is longer";
  files_->Commit(0, false);
  EXPECT_EQ(fs_.At("/t/f").data, "aaabbb");
}

TEST_F(SinkFilesTest, SameBlocksAreRefusedForFilesNotComparedAndPastTheTarget) {
  fs_.AddFile("/t/f", "aaa");
  OneFile(6);
  files_->Prepare(false);
  EXPECT_EQ(ThrownCode([&] { files_->RecordSame(0, 0, 3); }), ErrorCode::kProtocol);
  files_->MarkCompared(0, 3);
  EXPECT_EQ(ThrownCode([&] { files_->RecordSame(0, 3, 3); }), ErrorCode::kProtocol)
      << "the target has no such block";
  EXPECT_EQ(ThrownCode([&] { files_->RecordSame(0, 4, 3); }), ErrorCode::kProtocol)
      << "past the announced size";
  EXPECT_EQ(files_->bytes_received(), 0u);
  EXPECT_EQ(files_->covered(0), 0u);
}

TEST_F(SinkFilesTest, BlocksLandAtTheirOffsetsInThePartialFile) {
  OneFile(6);
  Write(0, 3, 3, 'b');
  Write(0, 0, 3, 'a');
  EXPECT_EQ(fs_.At("/t/f.braid-part").data, "aaabbb");
  auto again = Bytes(3, 'z');
  EXPECT_FALSE(files_->WriteBlock(0, 0, again.data(), 3)) << "bytes already there";
  EXPECT_EQ(fs_.At("/t/f.braid-part").data, "aaabbb");
  EXPECT_EQ(files_->bytes_received(), 6u);
}

TEST_F(SinkFilesTest, AFilesFirstBlockWaitsForRoomUntilACommitFreesIt) {
  TwoFilesRoomForOne(3);
  files_->EndFile(0, 3, std::nullopt);
  ASSERT_TRUE(files_->complete(0));
  std::atomic<bool> written{false};
  std::thread second([&] {
    Write(1, 0, 3, 'b');
    written = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(written.load()) << "a second file started past a bound of one";
  files_->Commit(0, false);
  second.join();
  EXPECT_TRUE(written.load());
  EXPECT_EQ(fs_.At("/t/b.braid-part").data, "bbb");
}

TEST_F(SinkFilesTest, TheWaitForRoomGivesWaySoThatItCannotDeadlock) {
  // A commit that does not come (a lost stream's frames come again out of order):
  // the second file starts anyway, after the wait.
  TwoFilesRoomForOne(3);
  files_->EndFile(0, 3, std::nullopt);
  const auto before = std::chrono::steady_clock::now();
  Write(1, 0, 3, 'b');
  EXPECT_GE(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(90));
  EXPECT_EQ(fs_.At("/t/b.braid-part").data, "bbb");
}

TEST_F(SinkFilesTest, WithNoFileCompleteAFileStartsWithoutWaiting) {
  // File 0's end may be queued behind file 1's first block: nothing would free room.
  TwoFilesRoomForOne(6);
  const auto before = std::chrono::steady_clock::now();
  Write(1, 0, 3, 'b');
  EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::seconds(5));
  EXPECT_EQ(fs_.At("/t/b.braid-part").data, "bbb");
  Write(0, 3, 3, 'c');  // and the first goes on
  EXPECT_EQ(fs_.At("/t/a.braid-part").data, "aaaccc");
}

TEST_F(SinkFilesTest, EndFileWithRangesMissingLeavesTheFileIncomplete) {
  std::vector<std::uint32_t> completed;
  OneFile(300);
  files_->OnComplete([&](std::uint32_t id) { completed.push_back(id); });
  Write(0, 0, 100, 'a');
  Write(0, 200, 100, 'c');
  files_->EndFile(0, 300, std::nullopt);
  EXPECT_FALSE(files_->complete(0));
  EXPECT_TRUE(completed.empty());
  std::vector<std::uint32_t> unrepairable;
  EXPECT_EQ(files_->Missing(10, unrepairable), (Missing{{0, 100, 100}}));

  Write(0, 100, 100, 'b');
  EXPECT_TRUE(files_->complete(0));
  EXPECT_EQ(completed, std::vector<std::uint32_t>{0});
  EXPECT_TRUE(files_->Missing(10, unrepairable).empty());
  EXPECT_TRUE(unrepairable.empty());
  auto late = Bytes(1, 'x');
  EXPECT_FALSE(files_->WriteBlock(0, 100, late.data(), 1)) << "a block resent after completion";
  EXPECT_EQ(fs_.At("/t/f.braid-part").data,
            std::string(100, 'a') + std::string(100, 'b') + std::string(100, 'c'));
}

TEST_F(SinkFilesTest, EndFileAfterEveryByteCompletesTheFileOnce) {
  int completed = 0;
  OneFile(4);
  files_->OnComplete([&](std::uint32_t) { ++completed; });
  Write(0, 0, 4, 'a');
  EXPECT_FALSE(files_->complete(0)) << "the end is not in yet";
  files_->EndFile(0, 4, std::nullopt);
  EXPECT_TRUE(files_->complete(0));
  // The same end asked for again after a lost stream is no news.
  EXPECT_NO_THROW(files_->EndFile(0, 4, std::nullopt));
  EXPECT_EQ(completed, 1);
  EXPECT_EQ(files_->WaitForPrefix(0, 0), std::optional<std::uint64_t>(4));
}

TEST_F(SinkFilesTest, ACommittedFileKeepsNoStateAndWhatComesAgainIsNoNews) {
  OneFile(4);
  files_->Prepare(false);
  Write(0, 0, 4, 'a');
  files_->EndFile(0, 4, std::nullopt);
  files_->Commit(0, false);
  EXPECT_TRUE(files_->committed(0));
  EXPECT_EQ(files_->covered(0), 0u) << "its state in flight is gone";
  EXPECT_EQ(fs_.At("/t/f").data, "aaaa");
  // After a lost stream the source may send a block or the end again.
  auto again = Bytes(2, 'b');
  EXPECT_FALSE(files_->WriteBlock(0, 2, again.data(), 2));
  EXPECT_NO_THROW(files_->EndFile(0, 4, std::nullopt));
  EXPECT_EQ(ThrownCode([&] { files_->EndFile(0, 3, std::nullopt); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files_->CheckBlock(0, 2, 3); }), ErrorCode::kProtocol);
  EXPECT_EQ(files_->end_size(0), std::optional<std::uint64_t>(4));
  EXPECT_EQ(files_->WaitForPrefix(0, 0), std::optional<std::uint64_t>(4));
  EXPECT_EQ(fs_.At("/t/f").data, "aaaa") << "nothing written after the commit";
  std::vector<std::uint32_t> unrepairable;
  EXPECT_TRUE(files_->Missing(10, unrepairable).empty());
}

TEST_F(SinkFilesTest, DataForAFileAnEarlierRunLeftInPlaceIsRefused) {
  OneFile(4);
  files_->MarkInPlace(0);
  files_->Prepare(false);
  EXPECT_EQ(files_->data_file_count(), 0u);
  auto data = Bytes(4, 'a');
  EXPECT_EQ(ThrownCode([&] { files_->WriteBlock(0, 0, data.data(), 4); }), ErrorCode::kProtocol);
  EXPECT_FALSE(fs_.Has("/t/f.braid-part"));
}

TEST_F(SinkFilesTest, EndFileThatContradictsWhatIsKnownIsRejected) {
  Make({Entry(0, FileKind::kRegular, "f", 10), Entry(1, FileKind::kRegular, "s", kUnknownSize)});
  EXPECT_EQ(ThrownCode([&] { files_->EndFile(0, 9, std::nullopt); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files_->EndFile(0, 11, std::nullopt); }), ErrorCode::kProtocol);
  files_->EndFile(0, 10, std::nullopt);
  DigestValue digest{};
  EXPECT_EQ(ThrownCode([&] { files_->EndFile(0, 10, digest); }), ErrorCode::kProtocol)
      << "a second end with another digest";
  files_->RecordStreamed(1, 0, 50);
  EXPECT_EQ(ThrownCode([&] { files_->EndFile(1, 49, std::nullopt); }), ErrorCode::kProtocol)
      << "an end before data already received";
  EXPECT_NO_THROW(files_->EndFile(1, 50, std::nullopt));
}

TEST_F(SinkFilesTest, MissingListsGapsThenTheEndPerFileUpToTheLimit) {
  Make({Entry(0, FileKind::kRegular, "a", 1000), Entry(1, FileKind::kDirectory, "d"),
        Entry(2, FileKind::kRegular, "d/b", 50), Entry(3, FileKind::kRegular, "d/s", kUnknownSize),
        Entry(4, FileKind::kRegular, "d/done", 5)});
  files_->Prepare(false);
  Write(0, 100, 100, 'x');
  Write(0, 500, 100, 'y');
  Write(4, 0, 5, 'z');
  files_->EndFile(4, 5, std::nullopt);
  std::vector<std::uint32_t> unrepairable;
  EXPECT_EQ(
      files_->Missing(100, unrepairable),
      (Missing{{0, 0, 100}, {0, 200, 300}, {0, 600, 400}, {0, 1000, 0}, {2, 0, 50}, {2, 50, 0}}));
  EXPECT_EQ(unrepairable, std::vector<std::uint32_t>{3}) << "a stream cannot be read again";

  unrepairable.clear();
  EXPECT_EQ(files_->Missing(2, unrepairable), (Missing{{0, 0, 100}, {0, 200, 300}}));
  files_->EndFile(0, 1000, std::nullopt);
  unrepairable.clear();
  EXPECT_EQ(files_->Missing(4, unrepairable),
            (Missing{{0, 0, 100}, {0, 200, 300}, {0, 600, 400}, {2, 0, 50}}))
      << "an end that arrived is not asked for again";
}

TEST_F(SinkFilesTest, RemovePartialsKeepsOnlyWhatKeepSays) {
  Make({Entry(0, FileKind::kRegular, "a", 10), Entry(1, FileKind::kRegular, "b", 10)});
  Write(0, 0, 5, 'a');
  Write(1, 0, 5, 'b');
  files_->RemovePartials([](std::uint32_t id) { return id == 1; });
  EXPECT_FALSE(fs_.Has("/t/a.braid-part"));
  EXPECT_EQ(fs_.At("/t/b.braid-part").data, "bbbbb");
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

// ------------------------------------------------------- one sink per partial

TEST_F(SinkFilesTest, APartialAnotherSinkHoldsIsNeverWritten) {
  SinkFiles& files = OneFile(8);
  files.Prepare(false);
  fs_.AddFile("/t/f.braid-part", "theirs");
  fs_.LockElsewhere("/t/f.braid-part");
  std::string why = Message([&] { Write(0, 0, 8, 'a'); });
  EXPECT_NE(why.find("sinkhost:/t/f: another braid is writing it"), std::string::npos) << why;
  EXPECT_EQ(fs_.At("/t/f.braid-part").data, "theirs") << "truncated before the lock was held";
  EXPECT_FALSE(files.AwaitPartialFree(0, std::chrono::steady_clock::now()));
}

TEST_F(SinkFilesTest, AFreePartialIsLockedThenEmptiedOrResumed) {
  SinkFiles& files = OneFile(8);
  files.Prepare(false);
  EXPECT_TRUE(files.AwaitPartialFree(0, std::chrono::steady_clock::now())) << "no file, no holder";
  fs_.AddFile("/t/f.braid-part", "leftover");
  EXPECT_TRUE(files.AwaitPartialFree(0, std::chrono::steady_clock::now()));
  files.OpenPartial(0);
  EXPECT_EQ(fs_.At("/t/f.braid-part").data, "") << "a fresh copy starts empty";

  SinkFiles& again = OneFile(8);
  again.Prepare(true);
  fs_.AddFile("/t/f.braid-part", "kept");
  again.OpenPartialForResume(0);
  EXPECT_EQ(fs_.At("/t/f.braid-part").data, "kept");
}

/// Writers of one file overlap around the page cache. A block that comes
/// twice can still be in its pwrite when the other copy completes the file:
/// the commit must not close the descriptor under it.
TEST_F(SinkFilesTest, ACommitWaitsForAWriteStillUnderWay) {
  constexpr std::uint32_t kHalf = 4u << 20;  // large enough to go around the page cache
  fs_.offer_direct = true;
  SinkFiles& files = OneFile(2 * kHalf);
  files.Prepare(false);
  auto aligned = [](std::uint8_t fill) {
    std::shared_ptr<std::uint8_t> p(static_cast<std::uint8_t*>(std::aligned_alloc(4096, kHalf)),
                                    std::free);
    std::memset(p.get(), fill, kHalf);
    return p;
  };
  auto a = aligned('a');
  auto b = aligned('b');
  files.WriteBlock(0, 0, a.get(), kHalf);
  std::mutex m;
  std::condition_variable cv;
  bool held = false, release = false;
  fs_.before_pwrite = [&] {
    std::unique_lock<std::mutex> lock(m);
    if (held) return;  // only the first write from here on waits
    held = true;
    cv.notify_all();
    cv.wait(lock, [&] { return release; });
  };
  std::thread slow([&] { files.WriteBlock(0, kHalf, b.get(), kHalf); });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return held; });
  }
  // The same block again, from another stream, while the first is held.
  EXPECT_TRUE(files.WriteBlock(0, kHalf, b.get(), kHalf));
  files.EndFile(0, 2 * kHalf, std::nullopt);
  ASSERT_TRUE(files.complete(0));
  std::atomic<bool> committed{false};
  std::thread commit([&] {
    files.Commit(0, false);
    committed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(committed.load()) << "committed while a write was under way";
  {
    std::lock_guard<std::mutex> lock(m);
    release = true;
  }
  cv.notify_all();
  slow.join();
  commit.join();
  EXPECT_TRUE(committed.load());
  EXPECT_EQ(fs_.At("/t/f").data, std::string(kHalf, 'a') + std::string(kHalf, 'b'));
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

FileEntry SparseEntry(std::uint64_t size) {
  FileEntry e = Entry(0, FileKind::kRegular, "f", size);
  e.sparse = true;
  return e;
}

TEST_F(SinkFilesTest, ASparseFileGetsItsSizeNotItsSpaceAndHolesCompleteIt) {
  constexpr std::uint32_t kSize = 1u << 20;  // past the size from which space is reserved
  SinkFiles& files = Make({SparseEntry(kSize)});
  files.Prepare(false);
  EXPECT_TRUE(files.RecordHole(0, 0, kSize / 2));
  EXPECT_EQ(fs_.fallocates, 0) << "a reservation would fill the holes";
  EXPECT_EQ(fs_.At("/t/f.braid-part").data.size(), kSize) << "a hole at the end reads as zeros";
  EXPECT_FALSE(files.RecordHole(0, 0, 4096)) << "there already";
  Write(0, kSize / 2, kSize / 2, 0x11);
  files.EndFile(0, kSize, std::nullopt);
  EXPECT_TRUE(files.complete(0));
  for (const std::string& line : fs_.log)
    EXPECT_EQ(line.rfind("punch", 0), std::string::npos) << line;

  // The same file not listed sparse has its space reserved.
  Make({Entry(0, FileKind::kRegular, "g", kSize)});
  files_->Prepare(false);
  Write(0, 0, 4096, 1);
  EXPECT_EQ(fs_.fallocates, 1);
}

TEST_F(SinkFilesTest, AHoleInKeptDataIsPunched) {
  SinkFiles& files = Make({SparseEntry(8192)});
  files.Prepare(true);
  fs_.AddFile("/t/f.braid-part", std::string(8192, 'k'));
  files.OpenPartialForResume(0);
  EXPECT_TRUE(files.RecordHole(0, 4096, 4096));
  EXPECT_EQ(fs_.At("/t/f.braid-part").data, std::string(4096, 'k') + std::string(4096, '\0'));
}

TEST_F(SinkFilesTest, HolesOutsideARegularFileAreRefused) {
  std::vector<FileEntry> entries = {SparseEntry(100), Entry(1, FileKind::kDirectory, "d"),
                                    Entry(2, FileKind::kStream, "s", 100)};
  SinkFiles& files = Make(entries);
  files.Prepare(false);
  EXPECT_EQ(ThrownCode([&] { files.RecordHole(0, 50, 51); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files.RecordHole(1, 0, 1); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files.RecordHole(2, 0, 1); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files.RecordHole(3, 0, 1); }), ErrorCode::kProtocol);
}

}  // namespace
}  // namespace braid
