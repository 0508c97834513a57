#include "session/descriptor_limit.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <algorithm>

namespace braid {
namespace {

TEST(DescriptorLimitTest, RaisingReachesTheHardLimit) {
  struct rlimit was {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &was), 0);
  struct rlimit low = was;
  low.rlim_cur = std::min<rlim_t>(256, was.rlim_max);
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  EXPECT_EQ(DescriptorLimit(), low.rlim_cur);
  const std::uint64_t hard = was.rlim_max == RLIM_INFINITY ? std::uint64_t{1} << 20 : was.rlim_max;
  const std::uint64_t raised = RaiseDescriptorLimit();
  EXPECT_EQ(raised, std::min<std::uint64_t>(hard, std::uint64_t{1} << 20));
  EXPECT_EQ(DescriptorLimit(), raised);
  EXPECT_EQ(RaiseDescriptorLimit(), raised);  // raising again changes nothing
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &was), 0);
}

TEST(DescriptorLimitTest, FilesGetWhatTheStreamsAndTheReserveLeave) {
  EXPECT_EQ(FilesOpenWithin(1024, 64), 1024u - 128 - 2 * 64);
  EXPECT_EQ(FilesOpenWithin(1024, 1), 1024u - 128 - 2);
  EXPECT_EQ(FilesOpenWithin(200, 64), kMinFilesOpen);  // less than the reserve
  EXPECT_EQ(FilesOpenWithin(0, 0), kMinFilesOpen);
}

}  // namespace
}  // namespace braid
