// Many small files and a few large ones in one recursive copy: the pipelined
// small-file path (one file list, many files in flight across the streams,
// batched commits) must deliver a tree identical in bytes, modes and times,
// pushed over the private sshd and pulled back.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using testing::RunBraid;
using testing::RunProcess;
using testing::SshdFixture;
using testing::WritePatternFile;

constexpr int kDirs = 100;
constexpr int kFilesPerDir = 100;  // 10,000 small files in all
constexpr std::size_t kSmallSize = 4096;
constexpr int kLargeFiles = 3;
constexpr std::uint64_t kLargeSize = 100ull << 20;
constexpr int kCopyTimeoutSeconds = 240;  // each copy; ctest allows 600 s per test

void SetTimes(const std::string& path, std::int64_t sec, long nsec) {
  timespec times[2] = {{sec, nsec}, {sec, nsec}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW), 0)
      << path << ": " << std::strerror(errno);
}

/// What -p must carry over, per path relative to the tree's root ("" is the root).
struct Meta {
  char type = '?';
  mode_t mode = 0;
  std::uint64_t size = 0;
  std::int64_t mtime_sec = 0;
  long mtime_nsec = 0;
  uid_t uid = 0;
  gid_t gid = 0;

  std::string Describe(bool with_owner) const {
    std::ostringstream o;
    o << type << " mode " << std::oct << mode << std::dec << " size " << size << " mtime "
      << mtime_sec << "." << mtime_nsec;
    if (with_owner) o << " owner " << uid << ":" << gid;
    return o.str();
  }
};

std::map<std::string, Meta> Walk(const std::string& root) {
  std::map<std::string, Meta> out;
  auto add = [&](const fs::path& p, const std::string& rel) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      ADD_FAILURE() << "lstat " << p << ": " << std::strerror(errno);
      return;
    }
    Meta m;
    m.type = S_ISDIR(st.st_mode)   ? 'd'
             : S_ISREG(st.st_mode) ? 'f'
             : S_ISLNK(st.st_mode) ? 'l'
                                   : 'o';
    m.mode = st.st_mode & 07777;
    m.size = m.type == 'f' ? static_cast<std::uint64_t>(st.st_size) : 0;
    m.mtime_sec = st.st_mtim.tv_sec;
    m.mtime_nsec = st.st_mtim.tv_nsec;
    m.uid = st.st_uid;
    m.gid = st.st_gid;
    out[rel] = m;
  };
  add(root, "");
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    add(e.path(), fs::relative(e.path(), root).string());
  }
  return out;
}

/// Every path on both sides with equal type, mode, size and mtime (and owner
/// when `with_owner`); reports the first differences, not all 10,000.
void ExpectSameMeta(const std::string& from, const std::string& to, bool with_owner) {
  auto a = Walk(from);
  auto b = Walk(to);
  EXPECT_EQ(a.size(), b.size()) << from << " vs " << to;
  int reported = 0;
  auto report = [&](const std::string& what) {
    if (++reported <= 10) ADD_FAILURE() << what;
  };
  for (const auto& [rel, ma] : a) {
    auto it = b.find(rel);
    if (it == b.end()) {
      report("missing in " + to + ": '" + rel + "'");
      continue;
    }
    const Meta& mb = it->second;
    bool same = ma.type == mb.type && ma.mode == mb.mode && ma.size == mb.size &&
                ma.mtime_sec == mb.mtime_sec && ma.mtime_nsec == mb.mtime_nsec &&
                (!with_owner || (ma.uid == mb.uid && ma.gid == mb.gid));
    if (!same) {
      report("'" + rel + "': source " + ma.Describe(with_owner) + ", copy " +
             mb.Describe(with_owner));
    }
  }
  for (const auto& [rel, mb] : b) {
    if (a.count(rel) == 0) report("extra in " + to + ": '" + rel + "'");
  }
  EXPECT_EQ(reported, 0) << reported << " difference(s) between " << from << " and " << to;
}

class SmallFilesTest : public testing::SshdTest {
 protected:
  bool root = ::geteuid() == 0;

  /// One source tree for every test in the binary, made once (about 340 MiB).
  static const std::string& Tree() {
    static const std::string path = MakeTree(SshdFixture::Get().root() + "/small-tree/tree");
    return path;
  }

  /// tree/dNN/fNNN: 100 directories of 100 files of 4 KiB, plus tree/large/bigN of
  /// 100 MiB. Some files and directories get distinct modes, all get old times with
  /// nanoseconds, and as root some get another owner.
  static std::string MakeTree(const std::string& tree) {
    bool root = ::geteuid() == 0;
    fs::create_directories(tree + "/large");
    std::vector<std::string> dirs;
    for (int d = 0; d < kDirs; ++d) {
      char name[16];
      std::snprintf(name, sizeof name, "d%02d", d);
      std::string sub = tree + "/" + name;
      fs::create_directory(sub);
      dirs.push_back(sub);
      for (int f = 0; f < kFilesPerDir; ++f) {
        char fname[16];
        std::snprintf(fname, sizeof fname, "f%03d", f);
        std::string path = sub + "/" + fname;
        int i = d * kFilesPerDir + f;
        WritePatternFile(path, kSmallSize, 1000 + static_cast<std::uint64_t>(i));
        static constexpr mode_t kModes[] = {0644, 0600, 0755, 0640, 0444, 0700, 0751, 0604};
        ::chmod(path.c_str(), kModes[i % 8]);
        if (root && i % 97 == 0) {
          EXPECT_EQ(::chown(path.c_str(), 4321, 4322), 0) << path;
        }
        // Old times, each file its own second and nanosecond.
        SetTimes(path, 1000000000 + i * 3601, (i * 7919L) % 1000000000L);
      }
    }
    for (int n = 0; n < kLargeFiles; ++n) {
      std::string path = tree + "/large/big" + std::to_string(n);
      WritePatternFile(path, kLargeSize, 77 + static_cast<std::uint64_t>(n));
      ::chmod(path.c_str(), n == 0 ? 0600 : n == 1 ? 0755 : 0644);
      SetTimes(path, 1200000000 + n, 123456789);
    }
    // Directories last: creating their files changed their times.
    for (int d = 0; d < kDirs; ++d) {
      ::chmod(dirs[d].c_str(), d % 3 == 0 ? 0700 : d % 3 == 1 ? 0750 : 0755);
      SetTimes(dirs[d], 1100000000 + d * 86400, 500 + d);
    }
    SetTimes(tree + "/large", 1150000000, 42);
    SetTimes(tree, 1160000000, 7);
    return tree;
  }

  void ExpectSameTree(const std::string& from, const std::string& to) {
    auto diff = RunProcess({"diff", "-r", from, to}, {}, "", kCopyTimeoutSeconds);
    EXPECT_EQ(diff.exit_code, 0) << diff.out.substr(0, 2000) << diff.err;
    ExpectSameMeta(from, to, root);
  }
};

TEST_F(SmallFilesTest, TenThousandSmallFilesAndThreeLargePushAndPullPreserved) {
  const std::string& tree = Tree();
  ASSERT_FALSE(HasFatalFailure());
  auto src = Walk(tree);
  ASSERT_EQ(src.size(), 1u + kDirs + kDirs * kFilesPerDir + 1u + kLargeFiles);

  std::filesystem::create_directories(dir + "/pushed");
  auto push = RunBraid({"-r", "-p", tree, Remote(dir + "/pushed/")}, {}, "", kCopyTimeoutSeconds);
  ASSERT_EQ(push.exit_code, 0) << push.err;
  ExpectSameTree(tree, dir + "/pushed/tree");

  auto pull = RunBraid({"-r", "-p", Remote(dir + "/pushed/tree"), dir + "/pulled"}, {}, "",
                       kCopyTimeoutSeconds);
  ASSERT_EQ(pull.exit_code, 0) << pull.err;
  ExpectSameTree(tree, dir + "/pulled");
}

TEST_F(SmallFilesTest, PullWithoutPreserveGivesTheSameBytes) {
  // Without -p: the same bytes, file modes from the source less the umask.
  const std::string& tree = Tree();
  ASSERT_FALSE(HasFatalFailure());
  auto pull = RunBraid({"-r", Remote(tree), dir + "/plain"}, {}, "", kCopyTimeoutSeconds);
  ASSERT_EQ(pull.exit_code, 0) << pull.err;
  auto diff = RunProcess({"diff", "-r", tree, dir + "/plain"}, {}, "", kCopyTimeoutSeconds);
  EXPECT_EQ(diff.exit_code, 0) << diff.out.substr(0, 2000) << diff.err;
  auto a = Walk(tree);
  auto b = Walk(dir + "/plain");
  ASSERT_EQ(a.size(), b.size());
  mode_t mask = ::umask(0);
  ::umask(mask);
  int bad = 0;
  for (const auto& [rel, ma] : a) {
    if (ma.type != 'f') continue;
    auto it = b.find(rel);
    if (it == b.end() || it->second.mode != (ma.mode & 0777 & ~mask)) {
      if (++bad <= 5) {
        ADD_FAILURE() << "'" << rel << "': source mode " << std::oct << ma.mode << ", copy "
                      << (it == b.end() ? 0 : it->second.mode);
      }
    }
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
}  // namespace braid
