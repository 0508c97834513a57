// --deploy: a remote end without braid (-T naming a missing path stands for a
// host whose PATH has none) gets this braid's portable build over the ssh
// channel it already has, cached in ~/.cache/braid/<sha256>/ there, checked
// before it runs, and reused by the next copy.
//
// Each test uploads its own copy of the portable binary with a trailer of its
// own appended (an ELF file ignores what follows it), so its SHA-256, and
// with it its cache directory, is the test's alone; the directory is removed
// at the end. The portable binary is braid-static where the build has it,
// else this build's braid (the "remote" host is this one).

#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "braid/error.h"
#include "braid/hash_algorithm.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using testing::Exists;
using testing::FileDigestHex;
using testing::RunBraid;
using testing::SameContents;
using testing::WritePatternFile;
using testing::WriteText;

#ifdef BRAID_STATIC_BINARY
constexpr const char* kPortable = BRAID_STATIC_BINARY;
#else
constexpr const char* kPortable = BRAID_BINARY;
#endif

class DeployTest : public testing::SshdTest {
 protected:
  void SetUp() override {
    portable_ = dir + "/portable-braid";
    // Without its debug information (a RelWithDebInfo braid is 40 MB): the
    // test is of the upload, not of its speed.
    if (testing::RunProcess({"strip", "-o", portable_, kPortable}).exit_code != 0) {
      fs::copy_file(kPortable, portable_, fs::copy_options::overwrite_existing);
    }
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::ofstream(portable_, std::ios::app)
        << "\nbraid deploy test " << test->name() << " " << ::getpid() << " "
        << std::chrono::steady_clock::now().time_since_epoch().count() << "\n";
    fs::permissions(portable_, fs::perms::owner_all);
    sha_ = FileDigestHex(portable_, HashAlgorithm::kSha256);
    // sshd gives remote commands the passwd entry's home.
    cache_ = std::string(::getpwuid(::getuid())->pw_dir) + "/.cache/braid/" + sha_;
    src_ = dir + "/src.dat";
    WritePatternFile(src_, 2u << 20, 77);
  }
  void TearDown() override {
    std::error_code ec;
    if (!cache_.empty()) fs::remove_all(cache_, ec);
  }
  /// braid with the test's portable binary and `args`.
  testing::ProcessResult Braid(std::vector<std::string> args) {
    return RunBraid(std::move(args), {{"BRAID_PORTABLE", portable_}});
  }

  std::string portable_;
  std::string sha_;
  std::string cache_;
  std::string src_;
};

TEST_F(DeployTest, MissingBraidExits6NamingDeploy) {
  auto r = Braid({"-T", "/nonexistent/braid", src_, Remote(dir + "/dst")});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kRemoteMissing)) << r.err;
  EXPECT_NE(r.err.find("--deploy"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(cache_));
}

TEST_F(DeployTest, UploadsOnceThenReuses) {
  auto first = Braid({"--deploy", "-v", "-T", "/nonexistent/braid", src_, Remote(dir + "/one")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(SameContents(src_, dir + "/one"));
  EXPECT_NE(first.err.find("uploaded " + portable_), std::string::npos) << first.err;
  const std::string cached = cache_ + "/braid";
  ASSERT_TRUE(Exists(cached));
  EXPECT_EQ(FileDigestHex(cached, HashAlgorithm::kSha256), sha_);
  struct stat st {};
  ASSERT_EQ(::stat(cached.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0700u);
  EXPECT_EQ(std::distance(fs::directory_iterator(cache_), fs::directory_iterator()), 1)
      << "a temporary file was left beside " << cached;

  // A pull this time: the deployed braid is the source.
  auto second =
      Braid({"--deploy", "-v", "-T", "/nonexistent/braid", Remote(dir + "/one"), dir + "/two"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(SameContents(src_, dir + "/two"));
  EXPECT_NE(second.err.find("reused the braid deployed at " + cached), std::string::npos)
      << second.err;
  EXPECT_EQ(second.err.find("uploaded"), std::string::npos) << second.err;
}

TEST_F(DeployTest, ACorruptedCachedBinaryIsReplacedNeverRun) {
  // Something else under the right name: run, it would leave a mark.
  const std::string mark = dir + "/ran";
  fs::create_directories(cache_);
  WriteText(cache_ + "/braid", "#!/bin/sh\ntouch " + mark + "\nexit 1\n");
  fs::permissions(cache_ + "/braid", fs::perms::owner_all);
  auto r = Braid({"--deploy", "-v", "-T", "/nonexistent/braid", src_, Remote(dir + "/dst")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src_, dir + "/dst"));
  EXPECT_FALSE(Exists(mark)) << "the corrupted binary ran";
  EXPECT_NE(r.err.find("replacing a copy whose SHA-256 did not match"), std::string::npos) << r.err;
  EXPECT_EQ(FileDigestHex(cache_ + "/braid", HashAlgorithm::kSha256), sha_);
}

TEST_F(DeployTest, AHostBraidOfThisProtocolIsUsedAndNothingUploaded) {
  auto r = Braid({"--deploy", "-v", src_, Remote(dir + "/dst")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src_, dir + "/dst"));
  EXPECT_NE(r.err.find("its own braid speaks this protocol"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(cache_));
}

TEST_F(DeployTest, AHostBraidOfAnotherProtocolIsNotUsed) {
  // A braid that says it speaks protocol 1, and would leave a mark if served.
  const std::string old = dir + "/old-braid";
  const std::string mark = dir + "/ran";
  WriteText(old,
            "#!/bin/sh\nif [ \"$1\" = --version ]; then printf 'braid 0.0.1\\nprotocol 1\\n'; "
            "exit 0; fi\ntouch " +
                mark + "\nexit 1\n");
  fs::permissions(old, fs::perms::owner_all);
  auto r = Braid({"--deploy", "-v", "-T", old, src_, Remote(dir + "/dst")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src_, dir + "/dst"));
  EXPECT_FALSE(Exists(mark));
  EXPECT_NE(r.err.find("uploaded"), std::string::npos) << r.err;
}

TEST_F(DeployTest, WorksThroughTheSystemSsh) {
  const std::string ssh = "ssh -F " + sshd.home() + "/.ssh/config";
  auto first =
      Braid({"--deploy", "-v", "-S", ssh, "-T", "/nonexistent/braid", src_, Remote(dir + "/one")});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_TRUE(SameContents(src_, dir + "/one"));
  EXPECT_NE(first.err.find("uploaded"), std::string::npos) << first.err;
  auto second =
      Braid({"--deploy", "-v", "-S", ssh, "-T", "/nonexistent/braid", src_, Remote(dir + "/two")});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.err.find("reused"), std::string::npos) << second.err;
}

TEST_F(DeployTest, AScriptThatHangsIsGivenUpWithinTheConnectTimeout) {
  // A -T whose --version never returns: the deploy script waits on it.
  const std::string slow = dir + "/slow-braid";
  // Once it wakes, it ends the deploy script, which would otherwise go on to
  // make the cache directory after TearDown has removed it.
  WriteText(slow, "#!/bin/sh\nsleep 10\nkill -KILL $PPID\n");
  fs::permissions(slow, fs::perms::owner_all);
  const auto start = std::chrono::steady_clock::now();
  auto r = Braid({"--deploy", "--connect-timeout", "2", "-T", slow, src_, Remote(dir + "/dst")});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kHostUnreachable)) << r.err;
  EXPECT_NE(r.err.find("did not answer within 2 s"), std::string::npos) << r.err;
  EXPECT_LT(took, std::chrono::seconds(8));
  EXPECT_FALSE(Exists(dir + "/dst"));
}

#ifdef BRAID_STATIC_BINARY
/// A static agent needs no braid-static beside it: it uploads itself.
TEST_F(DeployTest, AStaticAgentUploadsItself) {
  const std::string self_cache = std::string(::getpwuid(::getuid())->pw_dir) + "/.cache/braid/" +
                                 FileDigestHex(BRAID_STATIC_BINARY, HashAlgorithm::kSha256);
  std::error_code ec;
  fs::remove_all(self_cache, ec);
  auto r =
      testing::RunProcess({BRAID_STATIC_BINARY, "--deploy", "-v", "-T", "/nonexistent/braid", src_,
                           Remote(dir + "/dst")},
                          {{"HOME", sshd.home()}, {"SSH_AUTH_SOCK", ""}, {"BRAID_PORTABLE", ""}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src_, dir + "/dst"));
  EXPECT_NE(r.err.find("uploaded " + fs::canonical(BRAID_STATIC_BINARY).string()),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(Exists(self_cache + "/braid"));
  fs::remove_all(self_cache, ec);
}
#endif

TEST_F(DeployTest, TheConfigFileCanAskForIt) {
  const std::string config = dir + "/braid.conf";
  WriteText(config, "deploy = yes\n");
  auto r = Braid({"-C", config, "-v", "-T", "/nonexistent/braid", src_, Remote(dir + "/dst")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src_, dir + "/dst"));
  EXPECT_NE(r.err.find("uploaded"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace braid
