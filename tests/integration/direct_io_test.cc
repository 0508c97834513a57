// -u/--direct s|t|st (bbcp's -u): the source reads and the sink writes
// O_DIRECT, so after a copy the page cache holds almost none of the file at
// either end (fincore, as a user would check); without -u the source's reads
// fill it. The test directory is on the machine's disk, not tmpfs.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <sstream>
#include <string>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::WritePatternFile;

constexpr std::uint64_t kFileSize = 32u << 20;

/// Bytes of `path` in the page cache, by fincore(1); -1 if it cannot say.
long long CachedBytes(const std::string& path) {
  auto r = RunProcess({"fincore", "--bytes", "--noheadings", "--output", "RES", path});
  if (r.exit_code != 0) return -1;
  std::istringstream in(r.out);
  long long bytes = -1;
  in >> bytes;
  return bytes;
}

/// Writes the file out and drops it from the page cache, as a file not read lately is.
void DropFromCache(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0) << path;
  ASSERT_EQ(::fdatasync(fd), 0);
  ASSERT_EQ(::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
  ::close(fd);
}

class DirectIoTest : public testing::SshdTest {
 protected:
  void SetUp() override {
    SshdTest::SetUp();
    WritePatternFile(dir + "/data.bin", kFileSize, 7);
    DropFromCache(dir + "/data.bin");
    if (CachedBytes(dir + "/data.bin") != 0) GTEST_SKIP() << "the page cache did not let go";
  }
};

TEST_F(DirectIoTest, BothEndsLeaveThePageCacheAlmostEmpty) {
  auto r = RunBraid({"-u", "st", dir + "/data.bin", Remote(dir + "/copy.bin")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("O_DIRECT"), std::string::npos) << r.err;  // ext4 takes it
  // Under 5%: the list's few sampled blocks (the fingerprint) at the source.
  // Asked before the comparison, whose reads fill the cache.
  EXPECT_LT(CachedBytes(dir + "/data.bin"), static_cast<long long>(kFileSize / 20));
  EXPECT_LT(CachedBytes(dir + "/copy.bin"), static_cast<long long>(kFileSize / 20));
  EXPECT_TRUE(SameContents(dir + "/data.bin", dir + "/copy.bin"));
}

TEST_F(DirectIoTest, WithoutUTheSourcesReadsFillTheCache) {
  auto r = RunBraid({Remote(dir + "/data.bin"), dir + "/pulled.bin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(CachedBytes(dir + "/data.bin"), static_cast<long long>(kFileSize / 2));
}

TEST_F(DirectIoTest, PulledWithUSOnlyTheSourceGoesAroundTheCache) {
  auto r = RunBraid({"--direct=s", Remote(dir + "/data.bin"), dir + "/pulled.bin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(CachedBytes(dir + "/data.bin"), static_cast<long long>(kFileSize / 20));
  EXPECT_TRUE(SameContents(dir + "/data.bin", dir + "/pulled.bin"));
}

}  // namespace
}  // namespace braid
