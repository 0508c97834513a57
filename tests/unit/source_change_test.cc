#include "source/source_change.h"

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/stat.h>

#include <optional>
#include <string>

namespace braid {
namespace {

FileStamp Listed() {
  return {.size = 1000, .mtime_sec = 50, .mtime_nsec = 7, .ctime_sec = 60, .ctime_nsec = 8};
}

TEST(SourceChangeTest, TheSameStampIsNoChange) {
  EXPECT_EQ(DescribeChange(Listed(), Listed()), std::nullopt);
}

TEST(SourceChangeTest, ASizeChangeSaysBothSizes) {
  FileStamp now = Listed();
  now.size = 2500;
  now.mtime_sec = 51;
  EXPECT_EQ(DescribeChange(Listed(), now), "its size went from 1000 to 2500 bytes");
}

TEST(SourceChangeTest, ANewMtimeOfTheSameSizeIsAModification) {
  FileStamp now = Listed();
  now.mtime_nsec = 9;
  EXPECT_EQ(DescribeChange(Listed(), now), "it was modified");
}

TEST(SourceChangeTest, OnlyTheCtimeIsStillAChange) {
  // A writer that puts mtime back (touch -r) cannot put ctime back.
  FileStamp now = Listed();
  now.ctime_nsec = 9;
  std::optional<std::string> why = DescribeChange(Listed(), now);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("ctime"), std::string::npos) << *why;
}

TEST(SourceChangeTest, StampOfTakesSizeAndBothTimes) {
  struct stat st {};
  st.st_size = 42;
  st.st_mtim = {.tv_sec = 3, .tv_nsec = 4};
  st.st_ctim = {.tv_sec = 5, .tv_nsec = 6};
  FileStamp expected{.size = 42, .mtime_sec = 3, .mtime_nsec = 4, .ctime_sec = 5, .ctime_nsec = 6};
  EXPECT_EQ(StampOf(st), expected);
}

TEST(SourceChangeTest, TheMessageNamesHostAndPath) {
  EXPECT_EQ(ChangedMessage("h1", "/data/log", "it was modified"),
            "h1:/data/log changed while it was being copied (it was modified); copy it again "
            "once it no longer changes");
  EXPECT_EQ(ChangedMessage("", "/data/log", "x").rfind("/data/log changed while", 0), 0u);
}

TEST(SourceChangeTest, ProcAndSysSizesSayNothingOfTheirContent) {
  EXPECT_TRUE(SizeIsNotContent(PROC_SUPER_MAGIC));
  EXPECT_TRUE(SizeIsNotContent(SYSFS_MAGIC));
  EXPECT_TRUE(SizeIsNotContent(CGROUP2_SUPER_MAGIC));
  EXPECT_FALSE(SizeIsNotContent(EXT4_SUPER_MAGIC));
  EXPECT_FALSE(SizeIsNotContent(TMPFS_MAGIC));
}

}  // namespace
}  // namespace braid
