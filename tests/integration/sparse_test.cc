// Sparse files keep their holes: a file's holes (SEEK_DATA/SEEK_HOLE at the
// source) cross as hole frames and stay holes at the target, pushed, pulled
// and locally; --sparse also makes runs of zeros holes. A re-run that compares
// a file already there keeps the holes of the version it starts from.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "braid/unique_fd.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::RunBraid;
using testing::SameContents;

constexpr std::uint64_t kMiB = 1u << 20;

/// Bytes the file takes on disk.
std::uint64_t DiskBytes(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return static_cast<std::uint64_t>(st.st_blocks) * 512;
}

/// A file of `size` bytes holding `chunks` MiB of pattern data spread out,
/// the rest holes.
void MakeSparse(const std::string& path, std::uint64_t size, int chunks) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
  ASSERT_TRUE(fd.valid()) << path;
  ASSERT_EQ(::ftruncate(fd.get(), static_cast<off_t>(size)), 0);
  std::vector<std::uint8_t> chunk(kMiB);
  for (int i = 0; i < chunks; ++i) {
    for (std::size_t j = 0; j < chunk.size(); ++j) {
      chunk[j] = static_cast<std::uint8_t>((j * 131 + static_cast<std::size_t>(i) * 7 + 1) % 251);
    }
    // Not on a block boundary, so blocks that are part data, part hole occur too.
    const std::uint64_t at =
        size / static_cast<std::uint64_t>(chunks) * static_cast<std::uint64_t>(i) + 12345;
    ASSERT_EQ(::pwrite(fd.get(), chunk.data(), chunk.size(), static_cast<off_t>(at)),
              static_cast<ssize_t>(chunk.size()));
  }
}

/// The data ranges of `path` (SEEK_DATA / SEEK_HOLE).
std::vector<std::pair<off_t, off_t>> DataRanges(int fd) {
  std::vector<std::pair<off_t, off_t>> out;
  off_t at = 0;
  for (;;) {
    off_t data = ::lseek(fd, at, SEEK_DATA);
    if (data < 0) break;
    off_t hole = ::lseek(fd, data, SEEK_HOLE);
    out.emplace_back(data, hole);
    at = hole;
  }
  return out;
}

/// Whether two sparse files hold the same bytes, reading only their data:
/// each file's data ranges are compared with the other's bytes there (a
/// hole reads as zeros), so an 8 GiB file of holes costs its data only.
bool SparseSame(const std::string& a, const std::string& b) {
  UniqueFd fa(::open(a.c_str(), O_RDONLY));
  UniqueFd fb(::open(b.c_str(), O_RDONLY));
  if (!fa.valid() || !fb.valid()) return false;
  struct stat sa {
  }, sb{};
  if (::fstat(fa.get(), &sa) != 0 || ::fstat(fb.get(), &sb) != 0 || sa.st_size != sb.st_size) {
    return false;
  }
  std::vector<std::uint8_t> x(kMiB), y(kMiB);
  for (auto [one, other] : {std::pair{fa.get(), fb.get()}, std::pair{fb.get(), fa.get()}}) {
    for (auto [begin, end] : DataRanges(one)) {
      for (off_t at = begin; at < end;) {
        auto n = static_cast<std::size_t>(std::min<off_t>(end - at, static_cast<off_t>(kMiB)));
        if (::pread(one, x.data(), n, at) != static_cast<ssize_t>(n) ||
            ::pread(other, y.data(), n, at) != static_cast<ssize_t>(n) ||
            std::memcmp(x.data(), y.data(), n) != 0) {
          return false;
        }
        at += static_cast<off_t>(n);
      }
    }
  }
  return true;
}

class SparseTest : public testing::SshdTest {};

TEST_F(SparseTest, EightGibibytesWithEightMibibytesOfDataKeepItsSizeOnDiskBothWays) {
  const std::string src = dir + "/big.img";
  MakeSparse(src, 8ull << 30, 8);
  ASSERT_LE(DiskBytes(src), 9 * kMiB) << "this file system keeps no holes";
  auto pushed = RunBraid({src, Remote(dir + "/pushed.img")});
  ASSERT_EQ(pushed.exit_code, 0) << pushed.err;
  EXPECT_TRUE(SparseSame(src, dir + "/pushed.img"));
  // The data and the blocks it partly fills, nothing of the holes.
  EXPECT_LE(DiskBytes(dir + "/pushed.img"), 9 * kMiB);

  auto pulled = RunBraid({Remote(src), dir + "/pulled.img"});
  ASSERT_EQ(pulled.exit_code, 0) << pulled.err;
  EXPECT_TRUE(SparseSame(src, dir + "/pulled.img"));
  EXPECT_LE(DiskBytes(dir + "/pulled.img"), 9 * kMiB);
}

TEST_F(SparseTest, EndToEndHashCoversTheHoles) {
  // The case: 200 MB holding 4 KiB of data.
  const std::string src = dir + "/s.img";
  MakeSparse(src, 200'000'000, 1);
  auto r = RunBraid({"-e", src, Remote(dir + "/e.img")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, dir + "/e.img"));
  EXPECT_LE(DiskBytes(dir + "/e.img"), 2 * kMiB);
  EXPECT_EQ(testing::FileMd5(src), testing::FileMd5(dir + "/e.img"));
}

TEST_F(SparseTest, SparseOptionMakesRunsOfZerosHoles) {
  // 32 MiB written out, zeros but for 5 KiB in the middle.
  const std::string src = dir + "/zeros.img";
  {
    std::vector<std::uint8_t> zeros(32 * kMiB, 0);
    for (std::size_t i = 0; i < 5000; ++i)
      zeros[16 * kMiB + 100 + i] = static_cast<std::uint8_t>(i % 200 + 1);
    testing::WriteText(src, std::string(zeros.begin(), zeros.end()));
  }
  ASSERT_GE(DiskBytes(src), 32 * kMiB);
  auto plain = RunBraid({src, Remote(dir + "/plain.img")});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(SameContents(src, dir + "/plain.img"));
  EXPECT_GE(DiskBytes(dir + "/plain.img"), 32 * kMiB) << "zeros are data without --sparse";

  auto sparse = RunBraid({"--sparse", src, Remote(dir + "/sparse.img")});
  ASSERT_EQ(sparse.exit_code, 0) << sparse.err;
  EXPECT_TRUE(SameContents(src, dir + "/sparse.img"));
  EXPECT_LE(DiskBytes(dir + "/sparse.img"), 64u << 10);

  auto local = RunBraid({"--sparse", src, dir + "/local.img"});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  EXPECT_TRUE(SameContents(src, dir + "/local.img"));
  EXPECT_LE(DiskBytes(dir + "/local.img"), 64u << 10);
}

TEST_F(SparseTest, ReRunIntoAnOlderVersionKeepsTheHoles) {
  const std::string src = dir + "/v.img";
  MakeSparse(src, 1ull << 30, 4);
  auto first = RunBraid({src, Remote(dir + "/v.copy")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  // One more MiB of data in a hole; the copy's time differs (no -p), so the
  // re-run compares block by block and copies the old version's data only.
  {
    UniqueFd fd(::open(src.c_str(), O_WRONLY));
    std::vector<std::uint8_t> data(kMiB, 0x5a);
    ASSERT_EQ(::pwrite(fd.get(), data.data(), data.size(), 700 * static_cast<off_t>(kMiB)),
              static_cast<ssize_t>(kMiB));
  }
  auto again = RunBraid({src, Remote(dir + "/v.copy")});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(SparseSame(src, dir + "/v.copy"));
  EXPECT_LE(DiskBytes(dir + "/v.copy"), 7 * kMiB);
}

}  // namespace
}  // namespace braid
