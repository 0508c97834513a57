// --deploy's pure parts: where the portable binary is looked for, and the
// remote command's shape (the integration tests run it against sshd).

#include "launch/deploy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "braid/error.h"

namespace braid {
namespace {

namespace fs = std::filesystem;

class PortableBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("braid-deploy-unit-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "bin");
    self_ = (root_ / "bin" / "braid").string();
    Touch(self_);
  }
  void TearDown() override { fs::remove_all(root_); }
  static void Touch(const fs::path& path) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << "x";
  }
  ErrorCode FailsWith(const char* env, bool is_static) {
    try {
      FindPortableBinary(env, self_, is_static);
    } catch (const BraidError& e) {
      message_ = e.what();
      return e.code();
    }
    return ErrorCode::kOk;
  }

  fs::path root_;
  std::string self_;
  std::string message_;
};

TEST_F(PortableBinaryTest, NothingFoundNamesWhereItLooked) {
  EXPECT_EQ(FailsWith(nullptr, false), ErrorCode::kUsage);
  EXPECT_NE(message_.find((root_ / "bin" / "braid-static").string()), std::string::npos);
  EXPECT_NE(message_.find((root_ / "lib/braid/braid-static").string()), std::string::npos);
  EXPECT_NE(message_.find("BRAID_STATIC"), std::string::npos);
  EXPECT_NE(message_.find("BRAID_PORTABLE"), std::string::npos);
}

TEST_F(PortableBinaryTest, InstalledThenBesideThenSelfThenEnvironment) {
  const fs::path installed = root_ / "lib/braid/braid-static";
  Touch(installed);
  EXPECT_EQ(FindPortableBinary(nullptr, self_, false), installed.string());
  const fs::path beside = root_ / "bin/braid-static";
  Touch(beside);
  EXPECT_EQ(FindPortableBinary(nullptr, self_, false), beside.string());
  EXPECT_EQ(FindPortableBinary("", self_, true), self_);
  const fs::path named = root_ / "elsewhere";
  Touch(named);
  EXPECT_EQ(FindPortableBinary(named.c_str(), self_, true), named.string());
}

TEST_F(PortableBinaryTest, AnEnvironmentNamingNothingIsAnError) {
  const std::string missing = (root_ / "missing").string();
  EXPECT_EQ(FailsWith(missing.c_str(), true), ErrorCode::kUsage);
  EXPECT_NE(message_.find(missing), std::string::npos);
}

TEST(DeployCommandTest, OneLineThatNamesTheHashAndSize) {
  PortableBinary binary{"/x", std::string(64, 'a'), std::make_shared<std::vector<char>>(1234)};
  const std::string command = DeployCommand("/opt/it's/braid", " --max-entries 5", binary);
  EXPECT_EQ(command.find('\n'), std::string::npos);
  EXPECT_EQ(command.rfind("sh -c '", 0), 0u) << command;
  EXPECT_NE(command.find(".cache/braid/" + binary.sha256), std::string::npos);
  EXPECT_NE(command.find("head -c 1234 "), std::string::npos);
  // The user's -T is shell text; its quote survives the outer quoting.
  EXPECT_NE(command.find("/opt/it'\\''s/braid --serve --max-entries 5"), std::string::npos);
}

TEST(DeployStatusTest, TheScriptsThreeOutcomesNameThePathThatRuns) {
  for (const char* how : {"reused", "new", "replaced"}) {
    std::optional<DeployOutcome> done =
        ParseDeployDone(std::string("ok ") + how + " /home/u/.cache/braid/ab/braid");
    ASSERT_TRUE(done) << how;
    EXPECT_EQ(done->how, how);
    EXPECT_EQ(done->path, "/home/u/.cache/braid/ab/braid");
    EXPECT_EQ(done->command, "/home/u/.cache/braid/ab/braid --serve");
  }
}

TEST(DeployStatusTest, AnyOtherLineIsNotAnOutcome) {
  for (const char* line : {"ok uploaded /p", "ok reused", "ok reused ", "ok  /p", "okay new /p",
                           "ok system", "ok \x1b[2J /p", ""}) {
    EXPECT_FALSE(ParseDeployDone(line)) << line;
  }
}

}  // namespace
}  // namespace braid
