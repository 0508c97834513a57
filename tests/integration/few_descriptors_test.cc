// A tree of thousands of small files under a low limit on open descriptors: the
// sink holds a descriptor for each file until it commits it, so what it keeps
// waiting must fit the limit it got (session/descriptor_limit, sink/open_file_budget).
// Before, 10,000 files of 100 bytes ran out of a limit of 1024 ("Too many open
// files", exit 8); a -e copy ran out whatever the limit, given files enough.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/process_runner.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::RunProcess;

constexpr int kFiles = 3000;

class FewDescriptorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // On tmpfs, where files commit fastest, so that most wait at once (on ext4 the
    // old sink kept up well enough not to run out).
    std::string pattern = (::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    pattern += "/braid-fdlimit-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    std::vector<testing::TreeEntry> entries;
    for (int i = 0; i < kFiles; ++i) {
      entries.push_back(testing::TreeFile("d" + std::to_string(i / 500) + "/f" + std::to_string(i),
                                          100 + static_cast<std::uint64_t>(i % 7)));
    }
    tree_ = testing::MakeTree(dir_ + "/tree", entries);
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  /// braid with these arguments under a soft and hard limit of `limit` descriptors
  /// (util-linux's prlimit), its local ends inheriting it.
  testing::ProcessResult RunLimited(int limit, std::vector<std::string> args) {
    std::vector<std::string> argv{"prlimit", "--nofile=" + std::to_string(limit), BRAID_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, {}, "", 240);
  }

  void ExpectSameTree(const std::string& copy) {
    const auto diff = RunProcess({"diff", "-r", tree_, copy});
    EXPECT_EQ(diff.exit_code, 0) << diff.out << diff.err;
  }

  std::string dir_;
  std::string tree_;
};

TEST_F(FewDescriptorsTest, ThousandsOfSmallFilesFitA256DescriptorLimit) {
  const std::string out = dir_ + "/plain";
  auto r = RunLimited(256, {"-r", tree_, out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectSameTree(out);
}

TEST_F(FewDescriptorsTest, AVerifiedCopyFitsToo) {
  const std::string out = dir_ + "/verified";
  auto r = RunLimited(256, {"-r", "-e", "-s", "8", tree_, out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectSameTree(out);
}

}  // namespace
}  // namespace braid
