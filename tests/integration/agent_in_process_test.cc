// The agent in this process against real `braid --serve` loops on threads
// (support/in_process_servers.h): -z, which error is reported when both ends
// fail, and what resume reports, over real files and sockets without sshd.

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <filesystem>
#include <regex>
#include <string>

#include "braid/error.h"
#include "support/in_process_servers.h"
#include "support/mini_json.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t kMiB = 1 << 20;

class AgentInProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/braid-agent-in-process-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    config_ = dir_ + "/config";
    WriteText(config_, "");  // no user's ~/.config/braid/config
    fs::create_directories(dir_ + "/dst");
  }
  void TearDown() override {
    LiftFileSizeLimit();
    fs::remove_all(dir_);
  }

  /// `braid -C CONFIG ARGS...` in this process.
  AgentRun Braid(std::vector<std::string> args) {
    args.insert(args.begin(), {"-C", config_});
    return RunAgentInProcess(args, launcher_);
  }

  /// Writes past `bytes` fail with EFBIG in this whole process (the sink's
  /// threads included), as a disk that is full for the sink alone would.
  void LimitFileSize(rlim_t bytes) {
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &saved_limit_), 0);
    limited_ = true;
    ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_limit_;
    limit.rlim_cur = bytes;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  }
  void LiftFileSizeLimit() {
    if (!limited_) return;
    ::setrlimit(RLIMIT_FSIZE, &saved_limit_);
    ::signal(SIGXFSZ, SIG_DFL);
    limited_ = false;
  }

  /// A 24 MiB copy on one stream whose sink cannot write past 2 MiB, with
  /// `first`'s error held to reach the agent first (ErrorOrder).
  AgentRun FailBothEnds(Side first, std::uint64_t seed) {
    WritePatternFile(dir_ + "/file", 24 * kMiB, seed);
    launcher_.OrderErrors(first);
    LimitFileSize(2 * kMiB);
    AgentRun run = Braid({"-s", "1", dir_ + "/file", dir_ + "/dst/file"});
    LiftFileSizeLimit();
    return run;
  }

  std::string dir_;
  std::string config_;
  InProcessLauncher launcher_;
  rlimit saved_limit_{};
  bool limited_ = false;
};

TEST_F(AgentInProcessTest, CopiesATreeThroughServersInThisProcess) {
  fs::create_directories(dir_ + "/tree/sub");
  WritePatternFile(dir_ + "/tree/big", 5 * kMiB + 17, 1);
  WritePatternFile(dir_ + "/tree/sub/small", 4000, 2);
  AgentRun run = Braid({"-r", dir_ + "/tree", dir_ + "/dst/"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(launcher_.launched(), 2);
  std::string why;
  EXPECT_TRUE(SameContents(dir_ + "/tree/big", dir_ + "/dst/tree/big", &why)) << why;
  EXPECT_TRUE(SameContents(dir_ + "/tree/sub/small", dir_ + "/dst/tree/sub/small", &why)) << why;
}

TEST_F(AgentInProcessTest, ReverseConnectionsLetTheSourceListen) {
  WritePatternFile(dir_ + "/file", 3 * kMiB + 5, 3);
  AgentRun run = Braid({"-z", "-v", "-s", "2", dir_ + "/file", dir_ + "/dst/file"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The sink did not listen; the source did, on loopback, and the sink came to it.
  EXPECT_NE(run.err.find("the source will listen (-z)"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("braid: -z: source listening on 127.0.0.1 port "), std::string::npos)
      << run.err;
  std::string why;
  EXPECT_TRUE(SameContents(dir_ + "/file", dir_ + "/dst/file", &why)) << why;
}

TEST_F(AgentInProcessTest, ReverseSourceListensOnOurAddressTowardARemoteSink) {
  // A sink named as remote: the local source listens where the agent's
  // connection to the sink's host comes from (its channel's LocalAddress).
  launcher_.SetLocalAddress(Side::kSink, "127.0.0.2");
  WritePatternFile(dir_ + "/file", 2 * kMiB, 4);
  AgentRun run = Braid({"-z", "-v", dir_ + "/file", "far:" + dir_ + "/dst/file"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("braid: -z: source listening on 127.0.0.2 port "), std::string::npos)
      << run.err;
  std::string why;
  EXPECT_TRUE(SameContents(dir_ + "/file", dir_ + "/dst/file", &why)) << why;
}

/// Both ends fail: the sink cannot write past 2 MiB (its cause), so its
/// streams close and the source loses them all (the echo). `first` says whose
/// error the agent hears first; the cause is reported either way.
void ExpectTheSinksCauseReported(const AgentRun& run, ErrorOrder* order) {
  EXPECT_TRUE(order->Kept()) << "both ends should have failed, in the chosen order: "
                             << order->Describe() << "\n"
                             << run.err;
  EXPECT_EQ(run.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable)) << run.err;
  std::smatch line;
  ASSERT_TRUE(std::regex_search(run.err, line, std::regex("braid: [^\n]*File too large[^\n]*")))
      << run.err;
  EXPECT_NE(line.str().find("file.braid-part"), std::string::npos) << line.str();
}

TEST_F(AgentInProcessTest, ReportsTheSinksCauseWhenTheSourcesEchoComesFirst) {
  AgentRun run = FailBothEnds(Side::kSource, 5);
  ExpectTheSinksCauseReported(run, launcher_.error_order());
}

TEST_F(AgentInProcessTest, KeepsTheSinksCauseWhenTheSourcesEchoFollows) {
  AgentRun run = FailBothEnds(Side::kSink, 6);
  ExpectTheSinksCauseReported(run, launcher_.error_order());
}

/// A count in --json's "end" object.
std::uint64_t JsonCount(const std::string& out, const std::string& key) {
  return static_cast<std::uint64_t>(JsonReader::Parse(out)["end"][key].number);
}

TEST_F(AgentInProcessTest, ReportsCompleteFilesAndKeptBytesOnResume) {
  const std::string tree = dir_ + "/tree";
  const std::string dst = dir_ + "/dst/";
  fs::create_directories(tree);
  constexpr std::uint64_t kSmall = 300 << 10;
  for (std::uint64_t i = 1; i <= 3; ++i) {
    WritePatternFile(tree + "/a" + std::to_string(i), kSmall, 10 + i);
  }
  // -p: the quick check (size and mtime) then proves the small files unchanged.
  ASSERT_EQ(Braid({"-r", "-p", tree, dst}).exit_code, 0);

  // A large file joins the tree, and the sink's disk "fills" after 4 MiB of it.
  WritePatternFile(tree + "/z_big", 24 * kMiB, 20);
  LimitFileSize(4 * kMiB);
  AgentRun broken = Braid({"-r", "-p", "-s", "1", "--json", tree, dst});
  LiftFileSizeLimit();
  ASSERT_EQ(broken.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable)) << broken.err;
  EXPECT_NE(broken.err.find("braid: " + dst + ": skipped 3 unchanged files\n"), std::string::npos)
      << broken.err;
  std::smatch kept;
  ASSERT_TRUE(std::regex_search(broken.err, kept,
                                std::regex("braid: kept (.+) in 1 partial file at " + dst +
                                           "; run the same command again to resume")))
      << broken.err;
  const std::uint64_t kept_bytes = JsonCount(broken.out, "bytes_kept");
  EXPECT_GT(kept_bytes, 0u) << broken.out;
  EXPECT_LE(kept_bytes, 4 * kMiB) << broken.out;

  AgentRun resumed = Braid({"-r", "-p", "--json", tree, dst});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(
      resumed.err.find("braid: resuming " + dst + ": " + kept[1].str() +
                       " kept in 1 partial file\nbraid: " + dst + ": skipped 3 unchanged files\n"),
      std::string::npos)
      << resumed.err;
  EXPECT_EQ(JsonCount(resumed.out, "bytes_skipped"), 3 * kSmall + kept_bytes) << resumed.out;
  EXPECT_EQ(JsonCount(resumed.out, "blocks_resent"), 0u) << resumed.out;
  std::string why;
  EXPECT_TRUE(SameContents(tree + "/z_big", dst + "tree/z_big", &why)) << why;
}

}  // namespace
}  // namespace braid::testing
