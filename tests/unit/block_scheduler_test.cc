#include "engine/block_scheduler.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "braid/file_entry.h"

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
  return os << (s.kind == Kind::kBlock ? "Block" : "FileEnd") << "(id=" << s.file_id
            << ", offset=" << s.offset << ", length=" << s.length << ")";
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
  EXPECT_EQ(AllSteps({File(5, 3 * kBlock)}),
            (std::vector<Step>{B(5, 0, kBlock), B(5, kBlock, kBlock), B(5, 2 * kBlock, kBlock),
                               End(5, 3 * kBlock)}));
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
  std::vector<FileEntry> files = {File(7, kUnknownSize, FileKind::kStream)};
  BlockScheduler s(files, kBlock);
  auto a = s.Next();
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(ToStep(*a), B(7, 0, kBlock));
  s.Delivered(0);
  auto end = s.Next();
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(ToStep(*end), End(7, 0));
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

}  // namespace
}  // namespace braid
