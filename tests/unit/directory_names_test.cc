// The names in an open directory: every one but "." and "..", read through a
// copy of the descriptor, which stays usable after.

#include "session/directory_names.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

namespace braid {
namespace {

TEST(DirectoryNamesTest, GivesEveryNameButDotAndDotDotAndLeavesTheDescriptorOpen) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("braid-dirnames-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "a");
  std::ofstream(dir / "b.braid-part");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  std::set<std::string> names;
  EXPECT_EQ(ForEachName(fd, [&](std::string_view n) { names.emplace(n); }), 0);
  EXPECT_EQ(names, (std::set<std::string>{"a", "b.braid-part", "sub"}));
  // Read twice: the copy shares the offset, and each read starts at the top.
  names.clear();
  EXPECT_EQ(ForEachName(fd, [&](std::string_view n) { names.emplace(n); }), 0);
  EXPECT_EQ(names.size(), 3u);
  struct stat st {};
  EXPECT_EQ(::fstatat(fd, "a", &st, AT_SYMLINK_NOFOLLOW), 0);
  ::close(fd);
  std::filesystem::remove_all(dir);
}

TEST(DirectoryNamesTest, ABadDescriptorIsItsErrno) {
  int calls = 0;
  EXPECT_EQ(ForEachName(-1, [&](std::string_view) { ++calls; }), EBADF);
  EXPECT_EQ(calls, 0);
}

}  // namespace
}  // namespace braid
