#include "source/block_scheduler.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "braid/file_entry.h"
#include "proto/control_message.h"

namespace braid {
namespace {

constexpr std::uint32_t kBlock = 4096;

using Kind = BlockStep::Kind;

struct Step {
  Kind kind;
  std::uint32_t file_id;
  std::uint64_t offset;
  std::uint32_t length;
  bool operator==(const Step&) const = default;
};

std::ostream& operator<<(std::ostream& os, const Step& s) {
  return os << (s.kind == Kind::kBlock      ? "Block"
                : s.kind == Kind::kHashOnly ? "HashOnly"
                                            : "FileEnd")
            << "(id=" << s.file_id << ", offset=" << s.offset << ", length=" << s.length << ")";
}

Step B(std::uint32_t id, std::uint64_t offset, std::uint32_t length) {
  return {Kind::kBlock, id, offset, length};
}
Step End(std::uint32_t id, std::uint64_t size) { return {Kind::kFileEnd, id, size, 0}; }

Step ToStep(const BlockStep& s) { return {s.kind, s.file_id, s.offset, s.length}; }

FileEntry File(std::uint32_t id, std::uint64_t size, FileKind kind = FileKind::kRegular) {
  FileEntry e;
  e.id = id;
  e.kind = kind;
  e.path = "f" + std::to_string(id);
  e.size = size;
  return e;
}

/// Every step for files of known size (no Delivered calls), with a bound so a
/// scheduler that never ends fails instead of hanging.
std::vector<Step> AllSteps(const std::vector<FileEntry>& files, std::uint32_t block = kBlock) {
  BlockScheduler s(files, block);
  std::vector<Step> out;
  while (auto step = s.Next()) {
    out.push_back(ToStep(*step));
    if (out.size() > 100000) {
      ADD_FAILURE() << "scheduler does not end";
      break;
    }
  }
  // And it stays ended.
  EXPECT_FALSE(s.Next().has_value());
  return out;
}

TEST(BlockSchedulerTest, NoFilesNoSteps) {
  std::vector<FileEntry> files;
  BlockScheduler s(files, kBlock);
  EXPECT_FALSE(s.Next().has_value());
  EXPECT_FALSE(s.Next().has_value());
}

TEST(BlockSchedulerTest, EmptyFileIsJustItsEnd) {
  EXPECT_EQ(AllSteps({File(0, 0)}), (std::vector<Step>{End(0, 0)}));
}

TEST(BlockSchedulerTest, OneByteFile) {
  EXPECT_EQ(AllSteps({File(0, 1)}), (std::vector<Step>{B(0, 0, 1), End(0, 1)}));
}

TEST(BlockSchedulerTest, ExactlyOneBlock) {
  EXPECT_EQ(AllSteps({File(0, kBlock)}), (std::vector<Step>{B(0, 0, kBlock), End(0, kBlock)}));
}

TEST(BlockSchedulerTest, OneBlockMinusOneByte) {
  EXPECT_EQ(AllSteps({File(0, kBlock - 1)}),
            (std::vector<Step>{B(0, 0, kBlock - 1), End(0, kBlock - 1)}));
}

TEST(BlockSchedulerTest, OneBlockPlusOneByte) {
  EXPECT_EQ(AllSteps({File(0, kBlock + 1)}),
            (std::vector<Step>{B(0, 0, kBlock), B(0, kBlock, 1), End(0, kBlock + 1)}));
}

TEST(BlockSchedulerTest, SeveralWholeBlocks) {
  EXPECT_EQ(AllSteps({File(0, 3 * kBlock)}),
            (std::vector<Step>{B(0, 0, kBlock), B(0, kBlock, kBlock), B(0, 2 * kBlock, kBlock),
                               End(0, 3 * kBlock)}));
}

TEST(BlockSchedulerTest, SeveralFilesInOrderWithTheirIds) {
  std::vector<FileEntry> files = {File(0, kBlock + 10), File(1, 0), File(2, 7),
                                  File(3, 2 * kBlock)};
  EXPECT_EQ(AllSteps(files), (std::vector<Step>{
                                 B(0, 0, kBlock),
                                 B(0, kBlock, 10),
                                 End(0, kBlock + 10),
                                 End(1, 0),
                                 B(2, 0, 7),
                                 End(2, 7),
                                 B(3, 0, kBlock),
                                 B(3, kBlock, kBlock),
                                 End(3, 2 * kBlock),
                             }));
}

TEST(BlockSchedulerTest, DirectoriesAndSymlinksAreSkipped) {
  std::vector<FileEntry> files = {
      File(0, 0, FileKind::kDirectory), File(1, 100),
      File(2, 0, FileKind::kSymlink),   File(3, 0, FileKind::kDirectory),
      File(4, 0, FileKind::kSymlink),   File(5, 1)};
  // Sizes on non-data entries must not produce blocks either.
  files[3].size = 12345;
  files[4].size = 9;
  EXPECT_EQ(AllSteps(files), (std::vector<Step>{B(1, 0, 100), End(1, 100), B(5, 0, 1), End(5, 1)}));
}

TEST(BlockSchedulerTest, OnlyDirectoriesGiveNoSteps) {
  EXPECT_TRUE(AllSteps({File(0, 0, FileKind::kDirectory), File(1, 0, FileKind::kSymlink)}).empty());
}

TEST(BlockSchedulerTest, LargeFileOffsetsPastFourGiB) {
  constexpr std::uint32_t kBig = 64u << 20;
  const std::uint64_t size = 5 * (std::uint64_t{1} << 32) + 7;
  std::vector<Step> steps = AllSteps({File(0, size)}, kBig);
  ASSERT_FALSE(steps.empty());
  std::uint64_t expect_offset = 0;
  for (std::size_t i = 0; i + 1 < steps.size(); ++i) {
    ASSERT_EQ(steps[i].kind, Kind::kBlock) << i;
    ASSERT_EQ(steps[i].offset, expect_offset) << i;
    expect_offset += steps[i].length;
  }
  EXPECT_EQ(expect_offset, size);
  EXPECT_EQ(steps.size(), size / kBig + 2);  // full blocks, one short block, the end
  EXPECT_EQ(steps[steps.size() - 2].length, 7u);
  EXPECT_EQ(steps.back(), End(0, size));
}

TEST(BlockSchedulerTest, StreamOfKnownSizeIsScheduledLikeAFile) {
  EXPECT_EQ(AllSteps({File(0, kBlock + 3, FileKind::kStream)}),
            (std::vector<Step>{B(0, 0, kBlock), B(0, kBlock, 3), End(0, kBlock + 3)}));
}

TEST(BlockSchedulerTest, UnknownSizeStreamEndsOnShortDelivery) {
  std::vector<FileEntry> files = {File(0, kUnknownSize, FileKind::kStream), File(1, 5)};
  BlockScheduler s(files, kBlock);
  auto a = s.Next();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(ToStep(*a), B(0, 0, kBlock));
  s.Delivered(kBlock);
  auto b = s.Next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(ToStep(*b), B(0, kBlock, kBlock));
  s.Delivered(kBlock);
  auto c = s.Next();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(ToStep(*c), B(0, 2 * kBlock, kBlock));
  s.Delivered(100);
  auto end = s.Next();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(ToStep(*end), End(0, 2 * kBlock + 100));
  // The next file starts from zero, not where the stream stopped.
  auto d = s.Next();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(ToStep(*d), B(1, 0, 5));
  auto e = s.Next();
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(ToStep(*e), End(1, 5));
  EXPECT_FALSE(s.Next().has_value());
}

TEST(BlockSchedulerTest, UnknownSizeStreamEmptyAtOnce) {
  std::vector<FileEntry> files = {File(0, kUnknownSize, FileKind::kStream)};
  BlockScheduler s(files, kBlock);
  auto a = s.Next();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(ToStep(*a), B(0, 0, kBlock));
  s.Delivered(0);
  auto end = s.Next();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(ToStep(*end), End(0, 0));
  EXPECT_FALSE(s.Next().has_value());
}

TEST(BlockSchedulerTest, DeliveredZeroAfterFullBlocksEndsAtTheBoundary) {
  std::vector<FileEntry> files = {File(0, kUnknownSize, FileKind::kStream)};
  BlockScheduler s(files, kBlock);
  ASSERT_TRUE(s.Next().has_value());
  s.Delivered(kBlock);
  auto b = s.Next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(ToStep(*b), B(0, kBlock, kBlock));
  s.Delivered(0);
  auto end = s.Next();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(ToStep(*end), End(0, kBlock));
  EXPECT_FALSE(s.Next().has_value());
}

TEST(BlockSchedulerTest, DeliveredOneByteShort) {
  std::vector<FileEntry> files = {File(0, kUnknownSize, FileKind::kStream)};
  BlockScheduler s(files, kBlock);
  ASSERT_TRUE(s.Next().has_value());
  s.Delivered(kBlock - 1);
  auto end = s.Next();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(ToStep(*end), End(0, kBlock - 1));
}

TEST(BlockSchedulerTest, TwoUnknownSizeStreamsInARow) {
  std::vector<FileEntry> files = {File(0, kUnknownSize, FileKind::kStream),
                                  File(1, kUnknownSize, FileKind::kStream)};
  BlockScheduler s(files, kBlock);
  ASSERT_TRUE(s.Next().has_value());
  s.Delivered(10);
  auto end0 = s.Next();
  ASSERT_TRUE(end0.has_value());
  EXPECT_EQ(ToStep(*end0), End(0, 10));
  // The second stream must not inherit the first one's ended state.
  auto b = s.Next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(ToStep(*b), B(1, 0, kBlock));
  s.Delivered(kBlock);
  auto c = s.Next();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(ToStep(*c), B(1, kBlock, kBlock));
  s.Delivered(1);
  auto end1 = s.Next();
  ASSERT_TRUE(end1.has_value());
  EXPECT_EQ(ToStep(*end1), End(1, kBlock + 1));
  EXPECT_FALSE(s.Next().has_value());
}

TEST(BlockSchedulerTest, FullDeliveryOfKnownSizeChangesNothing) {
  std::vector<FileEntry> files = {File(0, kBlock + 1)};
  BlockScheduler s(files, kBlock);
  auto a = s.Next();
  ASSERT_TRUE(a.has_value());
  s.Delivered(a->length);
  auto b = s.Next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(ToStep(*b), B(0, kBlock, 1));
  s.Delivered(b->length);
  auto end = s.Next();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(ToStep(*end), End(0, kBlock + 1));
}

// ---------------------------------------------------------------- resume

Step H(std::uint32_t id, std::uint64_t offset, std::uint32_t length) {
  return {Kind::kHashOnly, id, offset, length};
}

ResumeEntry Kept(std::uint32_t id, std::vector<ByteRange> ranges) {
  return ResumeEntry::Partial(id, ranges);
}
ResumeEntry Complete(std::uint32_t id) { return ResumeEntry::Complete(id); }

/// Every step of a resumed transfer. `resume` must outlive the scheduler, as
/// the source's SourceStart does.
std::vector<Step> ResumeSteps(const std::vector<FileEntry>& files,
                              const std::vector<ResumeEntry>& resume, bool hash_kept,
                              std::uint32_t block = kBlock) {
  BlockScheduler s(files, block, resume, hash_kept);
  std::vector<Step> out;
  while (auto step = s.Next()) {
    out.push_back(ToStep(*step));
    if (out.size() > 100000) {
      ADD_FAILURE() << "scheduler does not end";
      break;
    }
  }
  EXPECT_FALSE(s.Next().has_value());
  return out;
}

TEST(BlockSchedulerTest, NoResumeEntriesChangeNothing) {
  std::vector<FileEntry> files = {File(0, 2 * kBlock + 5), File(1, 0), File(2, kBlock)};
  std::vector<ResumeEntry> none;
  EXPECT_EQ(ResumeSteps(files, none, false), AllSteps(files));
  EXPECT_EQ(ResumeSteps(files, none, true), AllSteps(files));
}

TEST(BlockSchedulerTest, RunOfCompleteFilesIsSkippedAndMayReachPastTheList) {
  // Files 1..3 complete as one run, file 5 kept in part, then a run of ids the
  // list does not have (a hostile agent's): only files 0, 4 and 5's rest are sent.
  std::vector<FileEntry> files = {File(0, 5), File(1, 5), File(2, 5),
                                  File(3, 5), File(4, 5), File(5, 2 * kBlock)};
  std::vector<ResumeEntry> resume = {ResumeEntry::Complete(1, 3), Kept(5, {{0, kBlock}}),
                                     ResumeEntry::Complete(6, 1u << 24)};
  EXPECT_EQ(ResumeSteps(files, resume, false),
            (std::vector<Step>{B(0, 0, 5), End(0, 5), B(4, 0, 5), End(4, 5), B(5, kBlock, kBlock),
                               End(5, 2 * kBlock)}));
}

TEST(BlockSchedulerTest, KeptBlocksAreSkipped) {
  std::vector<FileEntry> files = {File(0, 4 * kBlock)};
  std::vector<ResumeEntry> resume = {Kept(0, {{0, 2 * kBlock}})};
  EXPECT_EQ(
      ResumeSteps(files, resume, false),
      (std::vector<Step>{B(0, 2 * kBlock, kBlock), B(0, 3 * kBlock, kBlock), End(0, 4 * kBlock)}));
}

TEST(BlockSchedulerTest, KeptBlocksAreHashedOnlyForTheMd5) {
  std::vector<FileEntry> files = {File(0, 4 * kBlock)};
  std::vector<ResumeEntry> resume = {Kept(0, {{0, 2 * kBlock}})};
  EXPECT_EQ(ResumeSteps(files, resume, true),
            (std::vector<Step>{H(0, 0, kBlock), H(0, kBlock, kBlock), B(0, 2 * kBlock, kBlock),
                               B(0, 3 * kBlock, kBlock), End(0, 4 * kBlock)}));
}

TEST(BlockSchedulerTest, BlocksOfAComparedFileCarryTheTargetsHashOfThem) {
  // The target has two blocks and a bit; the source three and a bit.
  std::vector<FileEntry> files = {File(0, 5), File(1, 3 * kBlock + 1)};
  BlockHash a{}, b{}, c{};
  a[0] = 1;
  b[0] = 2;
  c[0] = 3;
  std::vector<ResumeEntry> resume = {ResumeEntry::Compared(1, kBlock, {a, b, c})};
  BlockScheduler s(files, kBlock, resume, false);
  std::vector<BlockStep> steps;
  while (auto step = s.Next()) steps.push_back(*step);
  ASSERT_EQ(steps.size(), 7u);  // file 0: block, end; file 1: four blocks, end
  EXPECT_FALSE(steps[0].compared) << "a file not compared is sent as ever";
  EXPECT_TRUE(steps[0].expected.empty());
  const BlockHash* want[] = {&resume[0].block_hashes()[0], &resume[0].block_hashes()[1],
                             &resume[0].block_hashes()[2], nullptr};
  for (std::size_t i = 0; i < 4; ++i) {
    const BlockStep& step = steps[2 + i];
    EXPECT_EQ(step.kind, BlockStep::Kind::kBlock);
    EXPECT_TRUE(step.compared);
    EXPECT_EQ(step.offset, i * kBlock);
    ASSERT_EQ(step.expected.empty(), want[i] == nullptr) << i;
    if (want[i]) {
      ASSERT_EQ(step.expected.size(), 1u);
      EXPECT_EQ(step.expected[0], *want[i]) << i;
      EXPECT_EQ(step.piece, kBlock);
    }
  }
  EXPECT_EQ(steps[6].kind, BlockStep::Kind::kFileEnd);
}

TEST(BlockSchedulerTest, PiecesOfABlockComeAsTheHashesOfThatBlock) {
  // Pieces of a quarter block; the target has 9 of them (two blocks and a piece).
  constexpr std::uint32_t kPiece = kBlock / 4;
  std::vector<FileEntry> files = {File(0, 3 * kBlock + 7)};
  std::vector<BlockHash> hashes(9);
  for (std::size_t i = 0; i < hashes.size(); ++i) hashes[i][0] = static_cast<std::uint8_t>(i + 1);
  std::vector<ResumeEntry> resume = {ResumeEntry::Compared(0, kPiece, hashes)};
  BlockScheduler s(files, kBlock, resume, false);
  std::vector<BlockStep> steps;
  while (auto step = s.Next()) steps.push_back(*step);
  ASSERT_EQ(steps.size(), 5u);  // four blocks, the end
  const std::size_t want_count[] = {4, 4, 1, 0};
  for (std::size_t b = 0; b < 4; ++b) {
    ASSERT_EQ(steps[b].expected.size(), want_count[b]) << b;
    for (std::size_t i = 0; i < want_count[b]; ++i) {
      EXPECT_EQ(steps[b].expected[i][0], 4 * b + i + 1) << b << " " << i;
    }
    if (want_count[b] > 0) {
      EXPECT_EQ(steps[b].piece, kPiece);
    }
  }
}

TEST(BlockSchedulerTest, PiecesThatDoNotTileABlockAreNotCompared) {
  std::vector<FileEntry> files = {File(0, 2 * kBlock)};
  for (std::uint32_t piece : {kBlock * 2, kBlock / 3 + 1}) {
    std::vector<ResumeEntry> resume = {ResumeEntry::Compared(0, piece, std::vector<BlockHash>(16))};
    BlockScheduler s(files, kBlock, resume, false);
    std::optional<BlockStep> step = s.Next();
    ASSERT_TRUE(step);
    EXPECT_TRUE(step->compared);
    EXPECT_TRUE(step->expected.empty()) << piece;
  }
}

TEST(BlockSchedulerTest, FullyKeptFileStillEnds) {
  // Every byte kept, but not marked complete: the sink still needs the end
  // frame to finish the file.
  std::vector<FileEntry> files = {File(0, 2 * kBlock + 9)};
  std::vector<ResumeEntry> resume = {Kept(0, {{0, 2 * kBlock + 9}})};
  EXPECT_EQ(ResumeSteps(files, resume, false), (std::vector<Step>{End(0, 2 * kBlock + 9)}));
  EXPECT_EQ(ResumeSteps(files, resume, true),
            (std::vector<Step>{H(0, 0, kBlock), H(0, kBlock, kBlock), H(0, 2 * kBlock, 9),
                               End(0, 2 * kBlock + 9)}));
}

TEST(BlockSchedulerTest, CompleteFilesProduceNoStepsAtAll) {
  std::vector<FileEntry> files = {File(0, 3 * kBlock), File(1, kBlock + 1), File(2, 0)};
  std::vector<ResumeEntry> resume = {Complete(0), Complete(2)};
  const std::vector<Step> want = {B(1, 0, kBlock), B(1, kBlock, 1), End(1, kBlock + 1)};
  EXPECT_EQ(ResumeSteps(files, resume, false), want);
  EXPECT_EQ(ResumeSteps(files, resume, true), want);  // no MD5 of a file in place either
  std::vector<ResumeEntry> all = {Complete(0), Complete(1), Complete(2)};
  EXPECT_TRUE(ResumeSteps(files, all, true).empty());
}

TEST(BlockSchedulerTest, BlockPartlyKeptIsSentWhole) {
  std::vector<FileEntry> files = {File(0, 3 * kBlock)};
  // Kept up to ten bytes into block 1: block 0 kept, block 1 sent whole.
  std::vector<ResumeEntry> resume = {Kept(0, {{0, kBlock + 10}})};
  EXPECT_EQ(ResumeSteps(files, resume, true),
            (std::vector<Step>{H(0, 0, kBlock), B(0, kBlock, kBlock), B(0, 2 * kBlock, kBlock),
                               End(0, 3 * kBlock)}));
  // Kept from ten bytes into block 0: block 0 sent, the rest kept.
  std::vector<ResumeEntry> tail = {Kept(0, {{10, 3 * kBlock}})};
  EXPECT_EQ(ResumeSteps(files, tail, false),
            (std::vector<Step>{B(0, 0, kBlock), End(0, 3 * kBlock)}));
  // One byte missing in the middle of block 1.
  std::vector<ResumeEntry> hole = {Kept(0, {{0, kBlock + 100}, {kBlock + 101, 3 * kBlock}})};
  EXPECT_EQ(ResumeSteps(files, hole, true),
            (std::vector<Step>{H(0, 0, kBlock), B(0, kBlock, kBlock), H(0, 2 * kBlock, kBlock),
                               End(0, 3 * kBlock)}));
}

TEST(BlockSchedulerTest, KeptRangesNotOnBlockBoundaries) {
  // As a journal written with another block size leaves them.
  std::vector<FileEntry> files = {File(0, 6 * kBlock)};
  std::vector<ResumeEntry> resume = {Kept(
      0, {{100, 3 * kBlock + 50}, {3 * kBlock + 60, 4 * kBlock}, {4 * kBlock + 1, 7 * kBlock}})};
  EXPECT_EQ(ResumeSteps(files, resume, true),
            (std::vector<Step>{B(0, 0, kBlock), H(0, kBlock, kBlock), H(0, 2 * kBlock, kBlock),
                               B(0, 3 * kBlock, kBlock), B(0, 4 * kBlock, kBlock),
                               H(0, 5 * kBlock, kBlock), End(0, 6 * kBlock)}));
}

TEST(BlockSchedulerTest, SeveralKeptRangesInOneFile) {
  std::vector<FileEntry> files = {File(0, 6 * kBlock + 3)};
  std::vector<ResumeEntry> resume = {
      Kept(0, {{0, kBlock}, {2 * kBlock, 3 * kBlock}, {5 * kBlock, 6 * kBlock + 3}})};
  EXPECT_EQ(ResumeSteps(files, resume, false),
            (std::vector<Step>{B(0, kBlock, kBlock), B(0, 3 * kBlock, kBlock),
                               B(0, 4 * kBlock, kBlock), End(0, 6 * kBlock + 3)}));
}

TEST(BlockSchedulerTest, ShortLastBlockKeptOnlyWhenWhollyKept) {
  std::vector<FileEntry> files = {File(0, 2 * kBlock + 100)};
  std::vector<ResumeEntry> most = {Kept(0, {{0, 2 * kBlock + 50}})};
  EXPECT_EQ(ResumeSteps(files, most, false),
            (std::vector<Step>{B(0, 2 * kBlock, 100), End(0, 2 * kBlock + 100)}));
  std::vector<ResumeEntry> all = {Kept(0, {{2 * kBlock, 2 * kBlock + 100}})};
  EXPECT_EQ(ResumeSteps(files, all, false),
            (std::vector<Step>{B(0, 0, kBlock), B(0, kBlock, kBlock), End(0, 2 * kBlock + 100)}));
}

TEST(BlockSchedulerTest, ResumeEntriesForOnlySomeFiles) {
  std::vector<FileEntry> files = {File(0, 3 * kBlock), File(1, 0, FileKind::kDirectory),
                                  File(2, 3 * kBlock), File(3, 2 * kBlock),
                                  File(4, 3 * kBlock), File(5, kBlock)};
  // File 0 ends on its second kept range: a cursor carried over from it would
  // miss file 2's first (and only) one. File 4 is complete.
  std::vector<ResumeEntry> resume = {Kept(0, {{0, kBlock}, {2 * kBlock, 3 * kBlock}}),
                                     Kept(2, {{0, kBlock}}), Complete(4), Kept(5, {{0, kBlock}})};
  EXPECT_EQ(ResumeSteps(files, resume, false),
            (std::vector<Step>{B(0, kBlock, kBlock), End(0, 3 * kBlock), B(2, kBlock, kBlock),
                               B(2, 2 * kBlock, kBlock), End(2, 3 * kBlock), B(3, 0, kBlock),
                               B(3, kBlock, kBlock), End(3, 2 * kBlock), End(5, kBlock)}));
}

TEST(BlockSchedulerTest, ResumeEntriesForUnknownFilesAreHarmless) {
  std::vector<FileEntry> files = {File(0, kBlock)};
  std::vector<ResumeEntry> resume = {Kept(7, {{0, kBlock}}), Complete(9)};
  EXPECT_EQ(ResumeSteps(files, resume, false), AllSteps(files));
}

TEST(BlockSchedulerTest, KeptRangesNeverApplyToAStreamOfUnknownSize) {
  std::vector<FileEntry> files = {File(0, kUnknownSize, FileKind::kStream)};
  std::vector<ResumeEntry> resume = {Kept(0, {{0, 10 * kBlock}})};
  BlockScheduler s(files, kBlock, resume, false);
  auto a = s.Next();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(ToStep(*a), B(0, 0, kBlock));
  s.Delivered(kBlock);
  auto b = s.Next();
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(ToStep(*b), B(0, kBlock, kBlock));
  s.Delivered(3);
  auto end = s.Next();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(ToStep(*end), End(0, kBlock + 3));
}

TEST(BlockSchedulerTest, KeptRangesNeverApplyToAStreamOfKnownSize) {
  // A stream (`--size 10G /dev/zero`) is read once, in order: skipping a block
  // would put the bytes of the next read at the wrong offset. Only a regular
  // file can resume; the sink never offers more, but the source must not rely
  // on that.
  std::vector<FileEntry> files = {File(0, 3 * kBlock, FileKind::kStream)};
  std::vector<ResumeEntry> resume = {Kept(0, {{0, 2 * kBlock}})};
  EXPECT_EQ(ResumeSteps(files, resume, false), AllSteps(files));
  std::vector<ResumeEntry> complete = {Complete(0)};
  EXPECT_EQ(ResumeSteps(files, complete, false), AllSteps(files));
}

TEST(BlockSchedulerTest, ResumeOnALargeFileSkipsExactlyTheKeptBytes) {
  constexpr std::uint32_t kBig = 1u << 20;
  const std::uint64_t size = 10ull * (std::uint64_t{1} << 32) + 12345;
  // Kept: the first 5 GiB and a GiB from 20 GiB on, both block aligned.
  const std::uint64_t five = 5ull << 30;
  const std::uint64_t twenty = 20ull << 30;
  std::vector<FileEntry> files = {File(0, size)};
  std::vector<ResumeEntry> resume = {Kept(0, {{0, five}, {twenty, twenty + (1ull << 30)}})};
  BlockScheduler s(files, kBig, resume, true);
  std::uint64_t sent = 0, hashed = 0, next = 0;
  std::optional<BlockStep> last;
  while (auto step = s.Next()) {
    if (step->kind == Kind::kFileEnd) {
      last = step;
      break;
    }
    ASSERT_EQ(step->offset, next);
    next += step->length;
    (step->kind == Kind::kHashOnly ? hashed : sent) += step->length;
  }
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->offset, size);
  EXPECT_EQ(next, size);
  EXPECT_EQ(hashed, five + (1ull << 30));
  EXPECT_EQ(sent, size - hashed);
  EXPECT_FALSE(s.Next().has_value());
}

}  // namespace
}  // namespace braid
