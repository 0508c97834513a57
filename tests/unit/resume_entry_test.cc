#include "proto/resume_entry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace braid {
namespace {

BlockHash HashOf(std::uint8_t byte) {
  BlockHash h{};
  h.fill(byte);
  return h;
}

TEST(ResumeEntryTest, ACopyHoldsItsOwnRangesAndHashes) {
  ResumeEntry partial = ResumeEntry::Partial(7, {{0, 4096}, {8192, 12288}});
  ResumeEntry copy = partial;
  partial = ResumeEntry::Complete(1, 3);
  EXPECT_EQ(copy.id, 7u);
  EXPECT_FALSE(copy.complete);
  const std::vector<ByteRange> want{{0, 4096}, {8192, 12288}};
  EXPECT_TRUE(std::ranges::equal(copy.kept(), want));
  EXPECT_TRUE(partial.kept().empty());
  EXPECT_EQ(partial.end(), 4u);

  ResumeEntry compared = ResumeEntry::Compared(9, 4096, {HashOf(1), HashOf(2)});
  ResumeEntry assigned;
  assigned = compared;
  ResumeEntry moved = std::move(compared);
  EXPECT_TRUE(std::ranges::equal(assigned.block_hashes(), moved.block_hashes()));
  // A copy holds its own: not the same bytes as the entry it was copied from.
  EXPECT_NE(assigned.block_hashes().data(), moved.block_hashes().data());
  ASSERT_EQ(assigned.block_hashes().size(), 2u);
  EXPECT_EQ(assigned.block_hashes()[1], HashOf(2));
  EXPECT_TRUE(assigned.compared);
  EXPECT_EQ(assigned.piece, 4096u);
  EXPECT_TRUE(assigned.kept().empty());
}

TEST(ResumeEntryTest, RangesAndHashesComeBackAsTheyWereGiven) {
  std::vector<BlockHash> hashes;
  for (int i = 0; i < 1000; ++i) {
    BlockHash& h = hashes.emplace_back(HashOf(static_cast<std::uint8_t>(i)));
    h[0] = static_cast<std::uint8_t>(i >> 8);  // each of the thousand differs
  }
  ResumeEntry compared = ResumeEntry::Compared(5, 65536, hashes);
  EXPECT_TRUE(std::ranges::equal(compared.block_hashes(), hashes));
  EXPECT_TRUE(compared.kept().empty());  // a compared entry has no kept ranges
  const std::vector<ByteRange> ranges{{0, 1}, {4096, 8192}, {UINT64_MAX - 1, UINT64_MAX}};
  ResumeEntry partial = ResumeEntry::Partial(6, ranges);
  EXPECT_TRUE(std::ranges::equal(partial.kept(), ranges));
  EXPECT_TRUE(partial.block_hashes().empty());  // nor a partial one hashes
  partial = std::move(compared);
  EXPECT_EQ(partial.block_hashes().size(), 1000u);
  EXPECT_EQ(partial.block_hashes()[999], hashes[999]);
}

TEST(ResumeEntryTest, EntriesWithoutRangesOrHashesHoldNothingElse) {
  // A -e re-run keeps one entry per file; most have neither ranges nor hashes.
  EXPECT_LE(sizeof(ResumeEntry), 24u);
  ResumeEntry empty_target = ResumeEntry::Compared(3, 4096, {});
  EXPECT_TRUE(empty_target.block_hashes().empty());
  EXPECT_TRUE(ResumeEntry::Partial(4, {}).kept().empty());
}

TEST(ResumeEntryTest, RunsOfCompleteFilesStayOneEntry) {
  std::vector<ResumeEntry> resume;
  for (std::uint32_t id : {0u, 1u, 2u, 5u, 6u}) AppendComplete(resume, id);
  resume.push_back(ResumeEntry::Partial(7, {{0, 1}}));
  AppendComplete(resume, 8);
  ASSERT_EQ(resume.size(), 4u);
  EXPECT_EQ(resume[0].count, 3u);
  EXPECT_EQ(resume[1].id, 5u);
  EXPECT_EQ(resume[1].count, 2u);
  EXPECT_EQ(ResumeFileCount(resume), 7u);
}

}  // namespace
}  // namespace braid
