// The portable binary (BRAID_STATIC): braid-static runs in an empty root, a
// directory that holds only it and /dev/null, so it needs nothing of the host
// it lands on but the kernel. Root only (chroot); skipped in a build without
// braid-static.

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

#ifdef BRAID_STATIC_BINARY
#define BRAID_STATIC_BINARY_OR_EMPTY BRAID_STATIC_BINARY
#else
#define BRAID_STATIC_BINARY_OR_EMPTY ""
#endif

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

/// A static glibc must not load the host's NSS modules: `~` is $HOME (which
/// sshd sets) and `~user` the host's `getent passwd user`, of which an empty
/// root has neither.
TEST_F(StaticBinaryTest, TildeIsHomeInAnEmptyRootAndGetentsAnswerOutsideIt) {
  const passwd* me = ::getpwuid(::getuid());
  ASSERT_NE(me, nullptr);
  const std::string home = me->pw_dir;
  const std::string src = dir + "/src.dat";
  WritePatternFile(src, 100000, 42);
  fs::create_directories(root_ + home);
  fs::copy_file(src, root_ + home + "/in-home.dat");
  auto tilde = RunBraid({"-T", ChrootCommand(), Remote("~/in-home.dat"), dir + "/tilde.dat"});
  ASSERT_EQ(tilde.exit_code, 0) << tilde.err;
  EXPECT_TRUE(SameContents(src, dir + "/tilde.dat"));
  // No getent in the empty root: ~user is an error naming it, not a crash.
  auto none = RunBraid(
      {"-T", ChrootCommand(), Remote("~" + std::string(me->pw_name) + "/x"), dir + "/none.dat"});
  EXPECT_NE(none.exit_code, 0);
  EXPECT_LT(none.exit_code, 128) << none.err;
  EXPECT_NE(none.err.find("~" + std::string(me->pw_name)), std::string::npos) << none.err;
  // Outside it, braid-static asks the host's getent.
  const std::string from_home = fs::relative(src, home).string();
  auto user =
      RunBraid({"-T", BRAID_STATIC_BINARY_OR_EMPTY,
                Remote("~" + std::string(me->pw_name) + "/" + from_home), dir + "/user.dat"});
  ASSERT_EQ(user.exit_code, 0) << user.err;
  EXPECT_TRUE(SameContents(src, dir + "/user.dat"));
}

}  // namespace
}  // namespace braid
