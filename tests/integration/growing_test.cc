// -R/--growing[=SEC] (bbcp's -R): a file still being written is copied to the
// end it has once it stops growing, while a writer appends to it; files that
// are already quiet end at once.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::MakeTree;
using testing::RunBraid;
using testing::SameContents;
using testing::TreeDifferences;
using testing::TreeFile;
using testing::WritePatternFile;

class GrowingTest : public testing::SshdTest {};

TEST_F(GrowingTest, AFileAppendedToWhileCopiedArrivesWhole) {
  const std::string log = dir + "/run.log";
  WritePatternFile(log, 1u << 20, 3);
  // 30 appends of 64 KiB, one every 100 ms: about 3 s of growth.
  std::thread writer([&log] {
    const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    std::vector<char> piece(64 * 1024);
    for (int i = 0; i < 30 && fd >= 0; ++i) {
      std::fill(piece.begin(), piece.end(), static_cast<char>('a' + i % 26));
      if (::write(fd, piece.data(), piece.size()) < 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (fd >= 0) ::close(fd);
  });
  auto r = RunBraid({"-R", "--growing=1", log, Remote(dir + "/copy.log")});
  writer.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::filesystem::file_size(log), (1u << 20) + 30u * 64 * 1024);
  EXPECT_TRUE(SameContents(log, dir + "/copy.log"));
}

TEST_F(GrowingTest, QuietFilesOfATreeEndAtOnce) {
  MakeTree(dir + "/tree", {TreeFile("a", 70000), TreeFile("sub/b", 5000), TreeFile("sub/c", 0)});
  // An hour old: each is past -R's 5 s at once. Waiting 5 s for each of the
  // three would take 15 s and be stopped by -t 12 (exit 142); not waiting,
  // the copy ends far within it, even under the sanitizers.
  const timespec hour_ago[2] = {{::time(nullptr) - 3600, 0}, {::time(nullptr) - 3600, 0}};
  for (const char* f : {"/tree/a", "/tree/sub/b", "/tree/sub/c"}) {
    ASSERT_EQ(::utimensat(AT_FDCWD, (dir + f).c_str(), hour_ago, 0), 0);
  }
  auto r = RunBraid({"-r", "-R", "-t", "12", dir + "/tree", Remote(dir + "/out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(TreeDifferences(dir + "/tree", dir + "/out"), "");
}

}  // namespace
}  // namespace braid
