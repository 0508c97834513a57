#include "sink/open_file_budget.h"

#include <gtest/gtest.h>

#include "session/descriptor_limit.h"

namespace braid {
namespace {

std::size_t Held(const OpenFileBudget& b) {
  return b.commit_waiting + b.commit_batch + b.verify_ahead;
}

TEST(OpenFileBudgetTest, ALargeLimitKeepsTheUsualBounds) {
  const OpenFileBudget b = SplitOpenFiles(FilesOpenWithin(524288, 64));
  EXPECT_EQ(b.in_flight, 524288u - 128 - 128);
  EXPECT_EQ(b.commit_waiting, 4096u);
  EXPECT_EQ(b.commit_batch, 1024u);
  EXPECT_EQ(b.verify_ahead, 4096u);
}

TEST(OpenFileBudgetTest, TheUsualSoftLimitIsShared) {
  // 1024 descriptors and 64 streams: 128 kept, 128 for the streams, 768 for files.
  const std::size_t files = FilesOpenWithin(1024, 64);
  EXPECT_EQ(files, 768u);
  const OpenFileBudget b = SplitOpenFiles(files);
  EXPECT_EQ(b.in_flight, files);
  EXPECT_EQ(b.commit_waiting, 256u);
  EXPECT_EQ(b.commit_batch, 64u);
  EXPECT_EQ(b.verify_ahead, 256u);
  EXPECT_LE(Held(b), files * 3 / 4);  // a quarter left for files still arriving
}

TEST(OpenFileBudgetTest, EveryLimitLeavesRoomForFilesStillArriving) {
  for (std::uint64_t limit : {0, 64, 256, 300, 1000, 4096, 20000, 1 << 20}) {
    const std::size_t files = FilesOpenWithin(limit, 64);
    EXPECT_GE(files, kMinFilesOpen) << limit;
    const OpenFileBudget b = SplitOpenFiles(files);
    EXPECT_EQ(b.in_flight, files) << limit;
    EXPECT_GE(b.commit_waiting, 1u) << limit;
    EXPECT_GE(b.commit_batch, 1u) << limit;
    EXPECT_GE(b.verify_ahead, 1u) << limit;
    EXPECT_LE(Held(b), files) << limit;
  }
}

}  // namespace
}  // namespace braid
