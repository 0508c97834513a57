// Checkpoint and resume through real processes: a copy broken at a random
// point (the remote server or the agent killed, the ssh connection cut, a data
// stream reset, the disk full, Ctrl-C) keeps its partial file and journal, and
// the same command run again sends only what is missing and ends byte-identical.

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include "braid/error.h"
#include "support/background_braid.h"
#include "support/journal_probe.h"
#include "support/mini_json.h"
#include "support/process_runner.h"
#include "support/scoped_tmpfs.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::BackgroundBraid;
using testing::ChildrenOf;
using testing::Exists;
using testing::FileSize;
using testing::JsonReader;
using testing::JsonValue;
using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::ScopedTmpfs;
using testing::WaitFor;
using testing::WritePatternFile;

constexpr std::uint64_t kBlock = 1u << 20;
constexpr std::uint64_t kGiB = 1ull << 30;
/// Blocks a resumed run may send beyond what it lacked: those in flight when
/// a checkpoint was cut short.
constexpr std::uint64_t kSlackBlocks = 4;

bool IsRoot() { return ::geteuid() == 0; }

class ResumeTest : public testing::SshdTest {
 protected:
  /// A 1 GiB source, made once per test.
  std::string BigSource() {
    std::string p = dir + "/big.src";
    WritePatternFile(p, kGiB, 11);
    return p;
  }

  /// A -T command that records the remote server's pid before becoming it,
  /// so the test can kill exactly the process it caused to start.
  std::string ServeWrapper() {
    std::string path = dir + "/serve-wrapper.sh";
    std::ofstream(path) << "#!/bin/sh\necho $$ >> " << dir << "/serve.pids\nexec braid \"$@\"\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
  }
  std::vector<pid_t> ServePids() const {
    std::vector<pid_t> pids;
    std::ifstream in(dir + "/serve.pids");
    for (pid_t p; in >> p;) pids.push_back(p);
    return pids;
  }

  /// Blocks the journal of `target` vouches for: each block once, whether
  /// its record is unsynced, synced or both.
  static std::uint64_t JournaledBlocks(const std::string& target) {
    return testing::JournaledBytes(target) / kBlock;
  }

  /// A kill point: somewhere between a tenth and two thirds of the file.
  std::uint64_t RandomPoint(std::uint64_t blocks) {
    std::random_device rd;
    unsigned seed = rd();
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::uint64_t> pick(blocks / 10, blocks * 2 / 3);
    std::uint64_t point = pick(rng);
    RecordProperty("kill_point_blocks", std::to_string(point));
    std::printf("kill point: after %llu journaled blocks (seed %u)\n",
                static_cast<unsigned long long>(point), seed);
    return point;
  }

  /// Runs the copy again with --json and checks the result; returns the document.
  JsonValue Rerun(std::vector<std::string> args, const std::string& src, const std::string& dst) {
    args.insert(args.begin(), "--json");
    auto r = RunBraid(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(SameContents(src, dst)) << dst;
    EXPECT_FALSE(Exists(dst + ".braid-part"));
    EXPECT_FALSE(Exists(dst + ".braid-journal"));
    EXPECT_NE(r.err.find("braid: resuming"), std::string::npos) << r.err;
    return JsonReader::Parse(r.out);
  }

  /// After a failure: the final name is not there, the partial state is.
  static void ExpectKept(const std::string& dst, const std::string& err) {
    EXPECT_FALSE(Exists(dst)) << "a broken copy must never appear under its final name";
    EXPECT_TRUE(Exists(dst + ".braid-part"));
    EXPECT_TRUE(Exists(dst + ".braid-journal"));
    EXPECT_NE(err.find("run the same command again to resume"), std::string::npos) << err;
  }
};

std::uint64_t Number(const JsonValue& doc, const char* key) {
  return static_cast<std::uint64_t>(doc["end"][key].number);
}

TEST_F(ResumeTest, RemoteServerKilledThenRerunSendsOnlyWhatIsMissing) {
  std::string src = BigSource();
  std::string dst = dir + "/killed-server.dst";
  std::vector<std::string> args{"--retry", "0",    "-T", ServeWrapper(),
                                "-x",      "400M", src,  Remote(dst)};
  std::uint64_t point = RandomPoint(kGiB / kBlock);
  {
    BackgroundBraid copy(args, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= point; }, 60)) << copy.err();
    ASSERT_EQ(ServePids().size(), 1u);
    ASSERT_EQ(::kill(ServePids().front(), SIGKILL), 0);
    EXPECT_NE(copy.Wait(), 0) << copy.err();
    ExpectKept(dst, copy.err());
  }
  // The sink died at once: its journal is exactly what a re-run may keep.
  std::uint64_t kept = JournaledBlocks(dst) * kBlock;
  ASSERT_GE(kept, point * kBlock);
  JsonValue doc = Rerun({src, Remote(dst)}, src, dst);
  EXPECT_EQ(Number(doc, "bytes_skipped"), kept);
  EXPECT_LE(Number(doc, "bytes"), kGiB - kept + kSlackBlocks * kBlock);
  EXPECT_EQ(Number(doc, "bytes") + Number(doc, "bytes_skipped"), kGiB);
}

TEST_F(ResumeTest, LocalAgentKilledThenRerunResumes) {
  std::string src = BigSource();
  std::string dst = dir + "/killed-agent.dst";
  std::vector<std::string> args{"--retry", "0",    "-T", ServeWrapper(),
                                "-x",      "400M", src,  Remote(dst)};
  std::uint64_t point = RandomPoint(kGiB / kBlock);
  {
    BackgroundBraid copy(args, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= point; }, 60)) << copy.err();
    copy.Signal(SIGKILL);
    EXPECT_EQ(copy.Wait(), 128 + SIGKILL);
  }
  // The remote sink notices its agent is gone, journals what it wrote and stops.
  ASSERT_EQ(ServePids().size(), 1u);
  pid_t sink = ServePids().front();
  EXPECT_TRUE(WaitFor([&] { return ::kill(sink, 0) != 0; }, 20)) << "the sink kept running";
  EXPECT_FALSE(Exists(dst));
  EXPECT_TRUE(Exists(dst + ".braid-part"));
  std::uint64_t kept = JournaledBlocks(dst) * kBlock;
  EXPECT_GE(kept, point * kBlock);
  JsonValue doc = Rerun({src, Remote(dst)}, src, dst);
  EXPECT_LE(Number(doc, "bytes"), kGiB - kept + kSlackBlocks * kBlock);
}

TEST_F(ResumeTest, SshConnectionCutThenRerunResumes) {
  std::string src = BigSource();
  std::string dst = dir + "/cut.dst";
  std::vector<std::string> args{"--retry", "0", "-x", "400M", src, Remote(dst)};
  std::uint64_t point = RandomPoint(kGiB / kBlock);
  {
    BackgroundBraid copy(args, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= point; }, 60)) << copy.err();
    // This test's own sshd serves only this copy: cut every connection to it.
    auto ss = RunProcess({"ss", "-K", "-t", "state", "established",
                          "( dport = :" + std::to_string(sshd.port()) + " )"});
    ASSERT_EQ(ss.exit_code, 0) << ss.err;
    EXPECT_NE(copy.Wait(), 0) << copy.err();
    ExpectKept(dst, copy.err());
  }
  std::uint64_t kept = JournaledBlocks(dst) * kBlock;
  EXPECT_GE(kept, point * kBlock);
  JsonValue doc = Rerun({src, Remote(dst)}, src, dst);
  EXPECT_LE(Number(doc, "bytes"), kGiB - kept + kSlackBlocks * kBlock);
}

TEST_F(ResumeTest, ResetDataStreamDoesNotStopTheCopy) {
  std::string src = BigSource();
  std::string dst = dir + "/reset.dst";
  BackgroundBraid copy({"-v", "-s", "4", "-x", "400M", src, Remote(dst)}, dir);
  std::smatch m;
  std::string err;
  ASSERT_TRUE(WaitFor(
      [&] {
        err = copy.err();
        return std::regex_search(err, m, std::regex("listening on \\S+ port ([0-9]+)"));
      },
      30))
      << err;
  std::string port = m[1];
  ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 100; }, 60)) << copy.err();
  // One established data stream, by its source port: ss -K closes both ends.
  auto list = RunProcess({"ss", "-Htn", "state", "established", "( dport = :" + port + " )"});
  ASSERT_EQ(list.exit_code, 0);
  std::smatch sm;
  ASSERT_TRUE(std::regex_search(list.out, sm, std::regex("(127\\.0\\.0\\.1:[0-9]+)\\s+127")))
      << list.out;
  std::string stream = sm[1];
  auto kill = RunProcess({"ss", "-K", "-t", "state", "established",
                          "( dport = :" + port + " and src " + stream + " )"});
  ASSERT_EQ(kill.exit_code, 0) << kill.err;
  ASSERT_EQ(copy.Wait(), 0) << copy.err();
  EXPECT_NE(copy.err().find("continuing on 3 streams"), std::string::npos) << copy.err();
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_FALSE(Exists(dst + ".braid-part"));
}

TEST_F(ResumeTest, ThreeOfEightStreamsClosedAtTheSinkStillCompletes) {
  // Closing the sink's end loses what its socket held unread: the sink must
  // ask the source again for those blocks, on the streams that remain.
  std::string src = BigSource();
  std::string dst = dir + "/reset3.dst";
  BackgroundBraid copy({"-v", "-s", "8", "-x", "1000M", src, Remote(dst)}, dir);
  std::smatch m;
  std::string err;
  ASSERT_TRUE(WaitFor(
      [&] {
        err = copy.err();
        return std::regex_search(err, m, std::regex("listening on \\S+ port ([0-9]+)"));
      },
      30))
      << err;
  std::string port = m[1];
  ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 50; }, 60)) << copy.err();
  auto list = RunProcess({"ss", "-Htn", "state", "established", "( sport = :" + port + " )"});
  ASSERT_EQ(list.exit_code, 0);
  std::regex peer("127\\.0\\.0\\.1:" + port + "\\s+(127\\.0\\.0\\.1:[0-9]+)");
  int closed = 0;
  for (auto it = std::sregex_iterator(list.out.begin(), list.out.end(), peer);
       it != std::sregex_iterator() && closed < 3; ++it, ++closed) {
    std::string stream = (*it)[1];
    auto kill = RunProcess({"ss", "-K", "-t", "state", "established",
                            "( sport = :" + port + " and dst " + stream + " )"});
    ASSERT_EQ(kill.exit_code, 0) << kill.err;
  }
  ASSERT_EQ(closed, 3) << list.out;
  ASSERT_EQ(copy.Wait(), 0) << copy.err();
  EXPECT_NE(copy.err().find("continuing on 5 streams"), std::string::npos) << copy.err();
  EXPECT_TRUE(SameContents(src, dst));
}

TEST_F(ResumeTest, FlippedByteInKeptBlockIsSentAgain) {
  std::string src = BigSource();
  std::string dst = dir + "/flipped.dst";
  std::vector<std::string> args{"--retry", "0",    "-T", ServeWrapper(),
                                "-x",      "400M", src,  Remote(dst)};
  {
    BackgroundBraid copy(args, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 200; }, 60)) << copy.err();
    ASSERT_EQ(::kill(ServePids().front(), SIGKILL), 0);
    copy.Wait();
  }
  std::uint64_t kept = JournaledBlocks(dst) * kBlock;
  // Block 7 is surely kept: blocks are journaled only once synced, and 200 were.
  {
    std::fstream f(dst + ".braid-part", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(7 * kBlock + 12345);
    char c = 0;
    f.seekg(7 * kBlock + 12345);
    f.get(c);
    f.seekp(7 * kBlock + 12345);
    f.put(static_cast<char>(c ^ 0x5a));
  }
  JsonValue doc = Rerun({src, Remote(dst)}, src, dst);
  EXPECT_EQ(Number(doc, "blocks_resent"), 1u);
  EXPECT_EQ(Number(doc, "bytes_skipped"), kept - kBlock);
  EXPECT_LE(Number(doc, "bytes"), kGiB - kept + (1 + kSlackBlocks) * kBlock);
}

TEST_F(ResumeTest, InterruptKeepsPartialAndSaysHowMuch) {
  std::string src = BigSource();
  std::string dst = dir + "/interrupted.dst";
  {
    BackgroundBraid copy({"-x", "400M", src, Remote(dst)}, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 100; }, 60)) << copy.err();
    copy.Signal(SIGINT);
    EXPECT_EQ(copy.Wait(), ExitCodeFor(ErrorCode::kInterrupted));
    ExpectKept(dst, copy.err());
    EXPECT_NE(copy.err().find("braid: kept "), std::string::npos) << copy.err();
  }
  Rerun({src, Remote(dst)}, src, dst);
}

TEST_F(ResumeTest, DiskFullKeepsConsistentStateAndResumesWhenThereIsRoom) {
  if (!IsRoot()) GTEST_SKIP() << "needs root to mount a small file system";
  ScopedTmpfs fs(dir + "/small", "size=96m");
  ASSERT_TRUE(fs.ok());
  std::string src = dir + "/medium.src";
  WritePatternFile(src, 64u << 20, 3);
  std::string dst = dir + "/small/medium.dst";
  std::string filler = dir + "/small/filler";
  {
    BackgroundBraid copy({"-x", "32M", src, Remote(dst)}, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 8; }, 60)) << copy.err();
    // Something else fills the disk while the copy runs.
    RunProcess({"sh", "-c", "cat /dev/zero > " + filler + " 2>/dev/null; true"});
    EXPECT_EQ(copy.Wait(), ExitCodeFor(ErrorCode::kDiskFull)) << copy.err();
    EXPECT_NE(copy.err().find("No space left on device"), std::string::npos) << copy.err();
    ExpectKept(dst, copy.err());
  }
  std::filesystem::remove(filler);
  JsonValue doc = Rerun({src, Remote(dst)}, src, dst);
  EXPECT_GE(Number(doc, "bytes_skipped"), 8 * kBlock);
}

TEST_F(ResumeTest, ChangedSourceStartsOver) {
  std::string src = dir + "/changing.src";
  WritePatternFile(src, 64u << 20, 4);
  std::string dst = dir + "/changing.dst";
  auto break_copy = [&] {
    BackgroundBraid copy({"-x", "32M", src, Remote(dst)}, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 8; }, 60)) << copy.err();
    copy.Signal(SIGINT);
    copy.Wait();
    ASSERT_TRUE(Exists(dst + ".braid-journal"));
  };
  // Modified the usual way: new content, new time.
  break_copy();
  WritePatternFile(src, 64u << 20, 5);
  auto r = RunBraid({"--json", src, Remote(dst)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("the source was modified since the partial copy was made; starting it over"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(Number(JsonReader::Parse(r.out), "bytes_skipped"), 0u);
  EXPECT_TRUE(SameContents(src, dst));

  // Rewritten with its time put back: the content fingerprint still tells.
  std::filesystem::remove(dst);
  break_copy();
  auto time = std::filesystem::last_write_time(src);
  WritePatternFile(src, 64u << 20, 6);
  std::filesystem::last_write_time(src, time);
  r = RunBraid({"--json", src, Remote(dst)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("content differs"), std::string::npos) << r.err;
  EXPECT_TRUE(SameContents(src, dst));
}

TEST_F(ResumeTest, AppendNeedsSomethingToResumeAndNoResumeStartsOver) {
  std::string src = dir + "/small.src";
  WritePatternFile(src, 16u << 20, 8);
  std::string dst = dir + "/small.dst";
  auto r = RunBraid({"-a", src, Remote(dst)});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kNothingToResume)) << r.err;
  EXPECT_NE(r.err.find("nothing to resume"), std::string::npos) << r.err;
  EXPECT_FALSE(Exists(dst));

  {
    BackgroundBraid copy({"-x", "8M", src, Remote(dst)}, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 4; }, 60)) << copy.err();
    copy.Signal(SIGINT);
    copy.Wait();
  }
  r = RunBraid({"--json", "--no-resume", src, Remote(dst)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  JsonValue doc = JsonReader::Parse(r.out);
  EXPECT_EQ(Number(doc, "bytes_skipped"), 0u);
  EXPECT_EQ(Number(doc, "bytes"), 16u << 20);
  EXPECT_TRUE(SameContents(src, dst));

  // -a on a completed copy: nothing to send, and that is not an error.
  r = RunBraid({"--json", "-a", src, Remote(dst)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Number(JsonReader::Parse(r.out), "bytes"), 0u);
}

TEST_F(ResumeTest, TreeSkipsCompletedFilesAndResumesThePartialOne) {
  std::string tree = dir + "/tree";
  std::filesystem::create_directories(tree);
  for (int i = 0; i < 3; ++i) {
    WritePatternFile(tree + "/f" + std::to_string(i), 24u << 20, 20 + static_cast<unsigned>(i));
  }
  std::string dst = dir + "/tree-copy";
  std::filesystem::create_directories(dst);
  {
    BackgroundBraid copy({"-r", "-x", "24M", tree, Remote(dst + "/")}, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst + "/tree/f2") >= 4; }, 60)) << copy.err();
    copy.Signal(SIGINT);
    EXPECT_EQ(copy.Wait(), ExitCodeFor(ErrorCode::kInterrupted));
  }
  ASSERT_TRUE(Exists(dst + "/tree/f0"));
  ASSERT_TRUE(Exists(dst + "/tree/f1"));
  ASSERT_FALSE(Exists(dst + "/tree/f2"));
  auto r = RunBraid({"--json", "-r", tree, Remote(dst + "/")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Made without -p, the two complete files have their copy time: compared,
  // not trusted, and found unchanged.
  EXPECT_NE(r.err.find("comparing 2 files already there block by block"), std::string::npos)
      << r.err;
  JsonValue doc = JsonReader::Parse(r.out);
  EXPECT_GE(Number(doc, "bytes_skipped"), 4 * kBlock);
  EXPECT_EQ(Number(doc, "bytes_unchanged"), 48u << 20);
  EXPECT_EQ(Number(doc, "files_unchanged"), 2u);
  EXPECT_LE(Number(doc, "bytes"), (20u << 20) + kSlackBlocks * kBlock);
  auto diff = RunProcess({"diff", "-r", tree, dst + "/tree"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out;
}

/// `braid -r tree NEW` makes NEW the copy of tree; interrupted and run again,
/// NEW exists, and cp's rule alone would copy the tree into NEW/tree. The
/// same command must go on where the first run was writing.
TEST_F(ResumeTest, ATreeInterruptedIntoANewNameResumesThere) {
  std::string tree = dir + "/tree";
  std::filesystem::create_directories(tree + "/sub");
  for (int i = 0; i < 3; ++i) {
    WritePatternFile(tree + "/sub/f" + std::to_string(i), 24u << 20, 40 + static_cast<unsigned>(i));
  }
  for (bool remote : {true, false}) {
    SCOPED_TRACE(remote ? "pushed over ssh" : "local");
    std::string dst = dir + (remote ? "/new-remote" : "/new-local");
    std::string target = remote ? Remote(dst) : dst;
    {
      BackgroundBraid copy({"-r", "-x", "24M", tree, target}, dir);
      ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst + "/sub/f1") >= 4; }, 60)) << copy.err();
      copy.Signal(SIGINT);
      EXPECT_EQ(copy.Wait(), ExitCodeFor(ErrorCode::kInterrupted));
    }
    ASSERT_TRUE(Exists(dst + ".braid-tree")) << "the mark a re-run finds";
    auto r = RunBraid({"--json", "-r", tree, target});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("braid: resuming"), std::string::npos) << r.err;
    EXPECT_FALSE(Exists(dst + "/tree")) << "copied into the target instead of resuming it";
    EXPECT_FALSE(Exists(dst + ".braid-tree")) << "the mark outlived the finished copy";
    EXPECT_FALSE(Exists(dst + "/sub/f1.braid-part"));
    auto diff = RunProcess({"diff", "-r", tree, dst});
    EXPECT_EQ(diff.exit_code, 0) << diff.out;
    // f0 was complete and f1 partly there: at most f1 and f2 travel again.
    EXPECT_LE(Number(JsonReader::Parse(r.out), "bytes"), (48u << 20) + kSlackBlocks * kBlock);
  }
}

/// A sink that stops answering (SIGSTOP) fails the copy as stalled,
/// promptly and with the documented exit code, and the copy resumes afterwards.
class StallTest : public ResumeTest {
 protected:
  /// Pushes (or, with `local_sink`, pulls) with `transport` (e.g. {} for libssh2,
  /// {"-S", ...}), stops the sink, and checks the stall, the exit and the resume.
  void StopSinkThenResume(const std::vector<std::string>& transport, bool local_sink = false) {
    std::string src = dir + "/stall.src";
    WritePatternFile(src, 64 * kBlock, 23);
    std::string dst = dir + "/stall.dst";
    const std::string from = local_sink ? Remote(src) : src;
    const std::string to = local_sink ? dst : Remote(dst);
    std::vector<std::string> args = transport;
    // --retry 0: the failure stays final, and the test types the command again.
    args.insert(args.end(), {"--retry", "0", "-T", ServeWrapper(), "-x", "8M", "--stall-timeout",
                             "2", from, to});
    pid_t sink = -1;
    {
      BackgroundBraid copy(args, dir);
      ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 4; }, 30)) << copy.err();
      // A local sink is the agent's only child; a remote one wrote its pid.
      std::vector<pid_t> pids = local_sink ? ChildrenOf(copy.pid()) : ServePids();
      ASSERT_EQ(pids.size(), 1u);
      sink = pids.front();
      ASSERT_EQ(::kill(sink, SIGSTOP), 0);
      // Whatever happens below, the stopped server must not outlive the test.
      struct Continue {
        pid_t pid;
        ~Continue() { ::kill(pid, SIGCONT); }
      } resume_it{sink};
      auto stopped = std::chrono::steady_clock::now();
      EXPECT_EQ(copy.Wait(30), ExitCodeFor(ErrorCode::kStalled)) << copy.err();
      auto took = std::chrono::steady_clock::now() - stopped;
      // 2 s without progress, then 2 s for the silent sink to answer Abort.
      EXPECT_LT(took, std::chrono::seconds(7)) << copy.err();
      EXPECT_GE(took, std::chrono::seconds(2)) << copy.err();
      EXPECT_NE(copy.err().find("braid: transfer stalled: no progress for"), std::string::npos)
          << copy.err();
      std::string sink_name = local_sink ? "the local sink" : "the sink on " + sshd.alias();
      EXPECT_NE(copy.err().find(sink_name + " has sent nothing for"), std::string::npos)
          << copy.err();
    }
    // Continued, a remote sink reads the Abort (or its channel's end) and keeps what it
    // has; a local one was killed, and its journal holds what it had synced.
    ASSERT_TRUE(WaitFor([&] { return ::kill(sink, 0) != 0; }, 30)) << "the sink kept running";
    EXPECT_FALSE(Exists(dst));
    EXPECT_TRUE(Exists(dst + ".braid-part"));
    EXPECT_TRUE(Exists(dst + ".braid-journal"));
    std::vector<std::string> again = transport;
    again.insert(again.end(), {"--stall-timeout", "2", from, to});
    JsonValue doc = Rerun(again, src, dst);
    EXPECT_GT(Number(doc, "bytes_skipped"), 0u);
  }
};

TEST_F(StallTest, StoppedRemoteSinkFailsAsStalledAndResumes) { StopSinkThenResume({}); }

TEST_F(StallTest, StoppedRemoteSinkOverSshCommandFailsAsStalledAndResumes) {
  StopSinkThenResume({"-S", "ssh -F " + sshd.home() + "/.ssh/config"});
}

TEST_F(StallTest, StoppedLocalSinkIsKilledAndTheCopyResumes) { StopSinkThenResume({}, true); }

}  // namespace
}  // namespace braid

namespace braid {
namespace {

TEST_F(ResumeTest, ARerunWaitsForAnEarlierSinkStillHoldingThePartial) {
  // An earlier attempt's sink that has not heard its session end (here: it is
  // stopped) still holds the partial file; the re-run waits, says so, and
  // resumes once that sink is gone, instead of writing beside it.
  std::string src = dir + "/held.src";
  WritePatternFile(src, 64u << 20, 5);
  std::string dst = dir + "/held.dst";
  std::vector<std::string> args{"--retry", "0",   "-T", ServeWrapper(),
                                "-x",      "16M", src,  Remote(dst)};
  pid_t old_sink = -1;
  {
    BackgroundBraid first(args, dir);
    ASSERT_TRUE(WaitFor([&] { return JournaledBlocks(dst) >= 8; }, 60)) << first.err();
    ASSERT_EQ(ServePids().size(), 1u);
    old_sink = ServePids().front();
    ASSERT_EQ(::kill(old_sink, SIGSTOP), 0);
    first.Signal(SIGKILL);
    first.Wait();
  }
  BackgroundBraid second({"-T", ServeWrapper(), src, Remote(dst)}, dir);
  bool waited = WaitFor(
      [&] { return second.err().find("another braid is still writing it") != std::string::npos; },
      30);
  ::kill(old_sink, SIGKILL);
  ASSERT_TRUE(waited) << second.err();
  ASSERT_EQ(second.Wait(), 0) << second.err();
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_NE(second.err().find("braid: resuming"), std::string::npos) << second.err();
}

}  // namespace
}  // namespace braid
