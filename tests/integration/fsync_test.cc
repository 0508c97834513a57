// -y, --fsync none|d|dd through the real binary: every policy copies files and
// trees correctly, the syncs each one makes are seen with strace, and -y none
// still keeps and resumes what a broken copy wrote.

#include <gtest/gtest.h>
#include <linux/magic.h>
#include <signal.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "support/background_braid.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using testing::BackgroundBraid;
using testing::Exists;
using testing::FileSize;
using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::WaitFor;
using testing::WritePatternFile;

constexpr std::uint64_t kMiB = 1u << 20;
const char* const kPolicies[] = {"none", "d", "dd"};

/// The sync calls strace saw: one line each, with -y's path of the descriptor.
struct Syncs {
  std::vector<std::string> lines;
  /// Calls whose line mentions `text` (a path, a flag).
  int Mentioning(const std::string& text) const {
    int n = 0;
    for (const auto& l : lines) n += l.find(text) != std::string::npos ? 1 : 0;
    return n;
  }
  int Count(const std::string& call) const { return Mentioning(call + "("); }
  /// fsync calls on exactly this directory.
  int DirectoryFsyncs(const std::string& dir) const {
    int n = 0;
    for (const auto& l : lines)
      n += l.find("fsync(") != std::string::npos && l.find("<" + dir + ">") != std::string::npos
               ? 1
               : 0;
    return n;
  }
  std::string All() const {
    std::string s;
    for (const auto& l : lines) s += l + "\n";
    return s;
  }
};

class FsyncTest : public testing::SshdTest {
 protected:
  /// A small tree: two levels of directories, files of a few sizes, a link.
  std::string MakeTree(const std::string& name) {
    return testing::MakeTree(
        dir + "/" + name,
        {testing::TreeFile("top.bin", 3 * kMiB + 5), testing::TreeFile("a/one.bin", 4096),
         testing::TreeFile("a/b/two.bin", 0), testing::TreeFile("c/three.bin", 5 * kMiB),
         testing::TreeLink("c/link", "top.bin")});
  }

  /// The same paths, types, bytes and link targets (the link is c/link -> top.bin).
  static void ExpectSameTree(const std::string& a, const std::string& b) {
    EXPECT_EQ(testing::TreeDifferences(a, b), "");
    EXPECT_EQ(fs::read_symlink(b + "/c/link"), "top.bin");
  }

  /// Runs a local copy under strace -f (the local servers are its children),
  /// tracing `calls` (strace's -e trace=), with `flags` (-Z: failed calls only).
  Syncs Traced(std::vector<std::string> args, const std::string& calls = "fdatasync,fsync,syncfs",
               const std::vector<std::string>& flags = {}) {
    std::string log = dir + "/strace.log";
    fs::remove(log);
    // LeakSanitizer cannot run under ptrace and aborts the traced process at exit.
    const char* asan = std::getenv("ASAN_OPTIONS");
    std::string no_leak_check =
        "ASAN_OPTIONS=" + std::string(asan != nullptr ? asan : "") + ":detect_leaks=0";
    std::vector<std::string> argv{"env", no_leak_check,    "strace", "-f",          "-qq", "-y",
                                  "-e",  "trace=" + calls, "-e",     "signal=none", "-o",  log};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back(BRAID_BINARY);
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = RunProcess(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Syncs s;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
      if (line.find('(') != std::string::npos) s.lines.push_back(line);
    }
    return s;
  }

  static bool HaveStrace() { return RunProcess({"strace", "-V"}).exit_code == 0; }
};

TEST_F(FsyncTest, EveryPolicyCopiesAFileLocallyAndPushed) {
  std::string src = dir + "/policy.src";
  WritePatternFile(src, 9 * kMiB + 77, 9);
  for (const char* policy : kPolicies) {
    SCOPED_TRACE(policy);
    for (bool remote : {false, true}) {
      std::string dst = dir + "/policy-" + policy + (remote ? "-push" : "-local");
      auto r = RunBraid({"-y", policy, src, remote ? Remote(dst) : dst});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      std::string why;
      EXPECT_TRUE(SameContents(src, dst, &why)) << why;
      EXPECT_FALSE(Exists(dst + ".braid-part"));
      EXPECT_FALSE(Exists(dst + ".braid-journal"));
    }
  }
}

TEST_F(FsyncTest, EveryPolicyCopiesATree) {
  std::string src = MakeTree("tree-src");
  for (const char* policy : kPolicies) {
    SCOPED_TRACE(policy);
    std::string dst = dir + "/tree-" + policy;
    auto r = RunBraid({"-r", "-y", policy, src, Remote(dst)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ExpectSameTree(src, dst);
  }
}

TEST_F(FsyncTest, NoneMakesNoSyncAtAll) {
  if (!HaveStrace()) GTEST_SKIP() << "strace is not installed";
  std::string src = dir + "/nosync.src";
  WritePatternFile(src, 70 * kMiB, 5);
  Syncs s = Traced({"-y", "none", src, dir + "/nosync.dst"});
  EXPECT_TRUE(s.lines.empty()) << s.All();
  EXPECT_TRUE(SameContents(src, dir + "/nosync.dst"));

  std::string tree = MakeTree("nosync-tree");
  s = Traced({"-r", "-y", "none", tree, dir + "/nosync-tree.dst"});
  EXPECT_TRUE(s.lines.empty()) << s.All();
  ExpectSameTree(tree, dir + "/nosync-tree.dst");
}

TEST_F(FsyncTest, DataSyncsFilesButNoDirectory) {
  if (!HaveStrace()) GTEST_SKIP() << "strace is not installed";
  std::string src = dir + "/datasync.src";
  WritePatternFile(src, 3 * kMiB, 6);
  std::string out = dir + "/datasync-out";
  fs::create_directories(out);
  Syncs s = Traced({"-y", "d", src, out + "/"});
  EXPECT_GE(s.Count("fdatasync") + s.Count("syncfs"), 1) << s.All();
  EXPECT_EQ(s.DirectoryFsyncs(out), 0) << s.All();
  // The default is d.
  Syncs plain = Traced({"-f", src, out + "/"});
  EXPECT_GE(plain.Count("fdatasync") + plain.Count("syncfs"), 1) << plain.All();
  EXPECT_EQ(plain.DirectoryFsyncs(out), 0) << plain.All();
}

TEST_F(FsyncTest, DataAndDirectoriesSyncsEveryDirectoryThatGainedAName) {
  if (!HaveStrace()) GTEST_SKIP() << "strace is not installed";
  std::string tree = MakeTree("dd-tree");
  std::string dst = dir + "/dd-tree.dst";
  Syncs s = Traced({"-r", "-y", "dd", tree, dst});
  ExpectSameTree(tree, dst);
  EXPECT_GE(s.Count("fdatasync") + s.Count("syncfs"), 1) << s.All();
  // The directory that gained the tree's root, and every directory inside
  // that gained a file, a directory or a link.
  for (const std::string& d : {dir, dst, dst + "/a", dst + "/a/b", dst + "/c"}) {
    EXPECT_GE(s.DirectoryFsyncs(d), 1) << d << "\n" << s.All();
  }
}

/// A durable copy writes a large file's aligned blocks around the page cache
/// (O_DIRECT) and its tail through it; -y none leaves it all to the page cache.
TEST_F(FsyncTest, LargeFilesAreWrittenAroundThePageCacheUnderEveryPolicy) {
  if (!HaveStrace()) GTEST_SKIP() << "strace is not installed";
  struct statfs scratch {};
  ASSERT_EQ(::statfs(dir.c_str(), &scratch), 0);
  // tmpfs is the page cache: the sink does not try O_DIRECT there.
  if (scratch.f_type == TMPFS_MAGIC) GTEST_SKIP() << dir << " is on tmpfs";
  std::string src = dir + "/direct.src";
  WritePatternFile(src, 9 * kMiB + 77, 13);
  for (const char* policy : kPolicies) {
    SCOPED_TRACE(policy);
    std::string dst = dir + "/direct-" + policy + ".dst";
    Syncs s = Traced({"-y", policy, src, dst}, "openat");
    EXPECT_TRUE(SameContents(src, dst));
    // -y none skips the syncs, not the way around the page cache.
    EXPECT_EQ(s.Mentioning("O_DIRECT|"), 1) << s.All();
  }
  // Blocks that are not a multiple of a page go buffered, and arrive whole.
  std::string odd = dir + "/direct-odd-blocks.dst";
  auto r = RunBraid({"-B", "1000001", src, Remote(odd)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, odd));
}

/// A tree copied into a directory that does not exist yet: the sink knows that
/// nothing can be under its names, and looks for no partial file or journal there.
TEST_F(FsyncTest, ATreeIntoANewDirectoryLooksForNoPartialOrJournal) {
  if (!HaveStrace()) GTEST_SKIP() << "strace is not installed";
  std::string tree = MakeTree("fresh-tree");
  for (int i = 0; i < 40; ++i) {
    WritePatternFile(tree + "/a/small" + std::to_string(i), 100 + static_cast<std::uint64_t>(i),
                     static_cast<std::uint64_t>(i));
  }
  std::string dst = dir + "/fresh-tree.dst";
  Syncs failed = Traced({"-r", tree, dst}, "openat,newfstatat,statx,access,unlink", {"-Z"});
  ExpectSameTree(tree, dst);
  EXPECT_EQ(failed.Mentioning(".braid-part"), 0) << failed.All();
  EXPECT_EQ(failed.Mentioning(".braid-journal"), 0) << failed.All();
  for (int i = 0; i < 40; ++i) {
    std::string rel = "/a/small" + std::to_string(i);
    EXPECT_TRUE(SameContents(tree + rel, dst + rel)) << rel;
  }
}

/// Small files whose directory is new are written nameless (O_TMPFILE) and
/// linked in when durable; large ones keep a named partial, which a re-run
/// resumes, and so does every file of a directory that already existed.
TEST_F(FsyncTest, SmallFilesInANewDirectoryGetNoPartialName) {
  if (!HaveStrace()) GTEST_SKIP() << "strace is not installed";
  std::string tree = MakeTree("nameless-tree");
  std::string dst = dir + "/nameless-tree.dst";
  Syncs calls = Traced({"-r", tree, dst}, "openat,linkat,rename,renameat2");
  ExpectSameTree(tree, dst);
  // one.bin (4 KiB) and two.bin (empty) are small; top.bin and three.bin are not.
  EXPECT_EQ(calls.Mentioning("O_TMPFILE"), 2) << calls.All();
  EXPECT_EQ(calls.Count("linkat"), 2) << calls.All();
  EXPECT_EQ(calls.Mentioning("one.bin.braid-part"), 0) << calls.All();
  EXPECT_EQ(calls.Mentioning("two.bin.braid-part"), 0) << calls.All();
  EXPECT_GE(calls.Mentioning("top.bin.braid-part"), 1) << calls.All();
  EXPECT_GE(calls.Mentioning("three.bin.braid-part"), 1) << calls.All();

  std::string into = dir + "/nameless-into";
  std::string again = into + "/nameless-tree";
  fs::create_directories(again + "/a/b");
  fs::create_directories(again + "/c");
  Syncs named = Traced({"-r", tree, into + "/"}, "openat,linkat,rename,renameat2");
  ExpectSameTree(tree, again);
  EXPECT_EQ(named.Mentioning("O_TMPFILE"), 0) << named.All();
  EXPECT_GE(named.Mentioning("one.bin.braid-part"), 1) << named.All();
}

/// -y none takes no checkpoints while the copy runs, but a copy that fails
/// still syncs what it wrote, journals it, and the re-run resumes.
TEST_F(FsyncTest, NoneStillKeepsAndResumesABrokenCopy) {
  std::string src = dir + "/none-resume.src";
  constexpr std::uint64_t kSize = 512 * kMiB;
  WritePatternFile(src, kSize, 12);
  std::string dst = dir + "/none-resume.dst";
  {
    BackgroundBraid copy({"-y", "none", "-x", "200M", "-P", "0.1", src, Remote(dst)}, dir);
    std::regex percent("braid: +([0-9]+)% ");
    ASSERT_TRUE(WaitFor(
        [&] {
          std::string err = copy.err();
          int most = 0;
          for (auto it = std::sregex_iterator(err.begin(), err.end(), percent);
               it != std::sregex_iterator(); ++it) {
            most = std::max(most, std::stoi((*it)[1]));
          }
          return most >= 20;
        },
        60))
        << copy.err();
    // No checkpoint has run: there is no journal yet.
    EXPECT_FALSE(Exists(dst + ".braid-journal"));
    copy.Signal(SIGINT);
    EXPECT_EQ(copy.Wait(), ExitCodeFor(ErrorCode::kInterrupted)) << copy.err();
    EXPECT_FALSE(Exists(dst));
    EXPECT_TRUE(Exists(dst + ".braid-part"));
    EXPECT_GT(FileSize(dst + ".braid-journal"), 56u) << copy.err();
    EXPECT_NE(copy.err().find("run the same command again to resume"), std::string::npos)
        << copy.err();
  }
  auto r = RunBraid({"-y", "none", src, Remote(dst)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("braid: resuming"), std::string::npos) << r.err;
  EXPECT_TRUE(SameContents(src, dst));
  EXPECT_FALSE(Exists(dst + ".braid-part"));
  EXPECT_FALSE(Exists(dst + ".braid-journal"));
}

}  // namespace
}  // namespace braid
