// The portable binary (BRAID_STATIC): braid-static runs in an empty root, a
// directory that holds only it and /dev/null, so it needs nothing of the host
// it lands on but the kernel. Root only (chroot); skipped in a build without
// braid-static.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::WritePatternFile;

class StaticBinaryTest : public testing::SshdTest {
 protected:
  void SetUp() override {
#ifndef BRAID_STATIC_BINARY
    GTEST_SKIP() << "built without -DBRAID_STATIC=ON";
#else
    if (::geteuid() != 0) GTEST_SKIP() << "chroot needs root";
    root_ = dir + "/root";
    fs::create_directories(root_ + "/dev");
    fs::copy_file(BRAID_STATIC_BINARY, root_ + "/braid");
    if (::mknod((root_ + "/dev/null").c_str(), S_IFCHR | 0666, ::makedev(1, 3)) != 0) {
      GTEST_SKIP() << "cannot make a /dev/null (mknod) here";
    }
#endif
  }
  /// -T: the remote end is braid-static in the empty root (by chroot's full
  /// path: the remote PATH has no sbin).
  std::string ChrootCommand() const {
    const std::string chroot = fs::exists("/usr/sbin/chroot") ? "/usr/sbin/chroot" : "chroot";
    return chroot + " " + root_ + " /braid";
  }

  std::string root_;
};

TEST_F(StaticBinaryTest, VersionRunsInAnEmptyRoot) {
  auto r = RunProcess({"chroot", root_, "/braid", "--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("braid ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nprotocol "), std::string::npos) << r.out;
}

TEST_F(StaticBinaryTest, ServesBothEndsOfACopyFromAnEmptyRoot) {
  const std::string src = dir + "/src.dat";
  WritePatternFile(src, 3u << 20, 41);
  // Push: the sink writes inside the empty root.
  auto push = RunBraid({"-T", ChrootCommand(), "-s", "4", src, Remote("/pushed.dat")});
  ASSERT_EQ(push.exit_code, 0) << push.err;
  std::string why;
  EXPECT_TRUE(SameContents(src, root_ + "/pushed.dat", &why)) << why;
  // Pull: the source reads there.
  auto pull = RunBraid({"-T", ChrootCommand(), Remote("/pushed.dat"), dir + "/pulled.dat"});
  ASSERT_EQ(pull.exit_code, 0) << pull.err;
  EXPECT_TRUE(SameContents(src, dir + "/pulled.dat", &why)) << why;
}

}  // namespace
}  // namespace braid
