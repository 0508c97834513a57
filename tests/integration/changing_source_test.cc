// Sources that change while they are copied, and files whose size says
// nothing of their content, through the real binary and the private sshd.
// A file appended to, rewritten in place or truncated during a rate-limited
// copy (-x, so the test can change it while the source is still reading it)
// fails with exit 7 naming it, is not renamed into place, and a re-run copies
// the new content whole: nothing torn is kept for a resume. /proc and /sys
// files arrive as cat reads them.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "braid/unique_fd.h"
#include "support/background_braid.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::BackgroundBraid;
using testing::Exists;
using testing::FileSize;
using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::WaitFor;
using testing::WritePatternFile;

constexpr std::uint64_t kMiB = 1u << 20;
/// Big enough for a journal (4 MiB and more), and at -x 1M with 64 KiB blocks
/// the source is still reading it seconds after its first block arrived: it
/// reads at most a few blocks ahead of what the limit lets out.
constexpr std::uint64_t kSize = 6 * kMiB;
constexpr std::uint64_t kJournalHeader = 56;

class ChangingSourceTest : public testing::SshdTest {
 protected:
  /// Starts a slow push of a fresh `kSize` file, runs `change` on it once the
  /// sink has journaled its first block, and expects the copy to fail naming
  /// it with nothing under the target's name; then a re-run copies the file as
  /// it is now, byte for byte, none of it taken from the torn partial copy.
  void ExpectCaught(const std::string& name, const std::function<void(const std::string&)>& change,
                    const std::string& streams = "1") {
    std::string src = dir + "/" + name + ".src";
    std::string dst = dir + "/" + name + ".dst";
    WritePatternFile(src, kSize, 1);
    {
      BackgroundBraid copy({"-s", streams, "-B", "64K", "-x", "1M", src, Remote(dst)}, dir);
      ASSERT_TRUE(WaitFor([&] { return FileSize(dst + ".braid-journal") > kJournalHeader; }, 60))
          << copy.err();
      change(src);
      EXPECT_EQ(copy.Wait(), ExitCodeFor(ErrorCode::kSourceUnreadable)) << copy.err();
      EXPECT_NE(copy.err().find(src + " changed while it was being copied"), std::string::npos)
          << copy.err();
      EXPECT_FALSE(Exists(dst)) << "a changed file was put in place";
    }
    testing::ProcessResult again = RunBraid({src, Remote(dst)});
    ASSERT_EQ(again.exit_code, 0) << again.err;
    // The partial copy's journal names the file as it was listed: not this one.
    EXPECT_NE(again.err.find("starting it over"), std::string::npos) << again.err;
    std::string why;
    EXPECT_TRUE(SameContents(src, dst, &why)) << why;
    EXPECT_FALSE(Exists(dst + ".braid-part"));
    EXPECT_FALSE(Exists(dst + ".braid-journal"));
  }

  /// Writes `text` at `offset` of `path` without truncating it.
  static void WriteAt(const std::string& path, std::uint64_t offset, const std::string& text,
                      int extra_flags = 0) {
    UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC | extra_flags));
    ASSERT_TRUE(fd.valid()) << path;
    ASSERT_EQ(::pwrite(fd.get(), text.data(), text.size(), static_cast<off_t>(offset)),
              static_cast<ssize_t>(text.size()));
  }
};

TEST_F(ChangingSourceTest, AFileAppendedToIsCaught) {
  ExpectCaught("appended", [](const std::string& src) {
    UniqueFd fd(::open(src.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC));
    ASSERT_TRUE(fd.valid());
    std::string more(kMiB, 'a');
    ASSERT_EQ(::write(fd.get(), more.data(), more.size()), static_cast<ssize_t>(more.size()));
  });
}

TEST_F(ChangingSourceTest, AFileRewrittenInPlaceIsCaught) {
  // The same size, new bytes everywhere: only its times tell. Four streams
  // carry blocks of the one file, so its end may pass some of them.
  ExpectCaught(
      "rewritten",
      [this](const std::string& src) {
        std::string fresh = dir + "/fresh";
        WritePatternFile(fresh, kSize, 2);
        WriteAt(src, 0, testing::ReadWhole(fresh));
      },
      "4");
}

TEST_F(ChangingSourceTest, AFileTruncatedIsCaught) {
  ExpectCaught("truncated", [](const std::string& src) {
    ASSERT_EQ(::truncate(src.c_str(), static_cast<off_t>(kSize / 2)), 0);
  });
}

/// A process that sleeps until the test ends, so its /proc status holds still.
class Sleeper {
 public:
  Sleeper() {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::execlp("sleep", "sleep", "600", static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~Sleeper() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  Sleeper(const Sleeper&) = delete;
  Sleeper& operator=(const Sleeper&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

std::string Cat(const std::string& path) { return RunProcess({"cat", path}).out; }

/// A sleeping process's status without its SigQ line, whose count is of the
/// signals queued for the whole user and moves with every other process.
std::string StillStatus(const std::string& status) {
  std::istringstream in(status);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("SigQ:", 0) != 0) out += line + "\n";
  }
  return out;
}

/// Until `proc` is the status of `sleep` itself, asleep (not the forked test before its exec).
bool Asleep(const std::string& proc) {
  return WaitFor(
      [&] {
        const std::string status = Cat(proc);
        return status.find("Name:\tsleep\n") != std::string::npos &&
               status.find("State:\tS") != std::string::npos;
      },
      10);
}

/// The name before the colon of each line: what /proc/self/status holds,
/// whichever process reads it.
std::vector<std::string> FieldNames(const std::string& text) {
  std::vector<std::string> names;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) names.push_back(line.substr(0, line.find(':')));
  return names;
}

TEST_F(ChangingSourceTest, ProcStatusArrivesAsCatReadsIt) {
  // Its size reads as 0; a sleeping process's status does not change between
  // reads, but for SigQ (StillStatus).
  Sleeper sleeper;
  ASSERT_GT(sleeper.pid(), 0);
  std::string proc = "/proc/" + std::to_string(sleeper.pid()) + "/status";
  ASSERT_TRUE(Asleep(proc));
  std::string before = Cat(proc);
  std::string dst = dir + "/status";
  testing::ProcessResult r = RunBraid({proc, Remote(dst)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string after = Cat(proc);
  std::string copied = testing::ReadWhole(dst);
  ASSERT_FALSE(copied.empty());
  EXPECT_TRUE(StillStatus(copied) == StillStatus(after) ||
              StillStatus(copied) == StillStatus(before))
      << copied;
}

TEST_F(ChangingSourceTest, ProcSelfStatusIsTheReadersOwnAndWhole) {
  // The serve process that reads it is its "self": its fields, not its values, are known.
  std::string dst = dir + "/self-status";
  testing::ProcessResult r = RunBraid({"-e", "/proc/self/status", Remote(dst)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string copied = testing::ReadWhole(dst);
  EXPECT_EQ(copied.rfind("Name:\t", 0), 0u) << copied;
  EXPECT_EQ(FieldNames(copied), FieldNames(Cat("/proc/self/status")));
}

TEST_F(ChangingSourceTest, SysFileArrivesAsCatReadsIt) {
  // Its size reads as 4096, its content is a line; these do not change while a test runs.
  std::string sys;
  for (const char* candidate :
       {"/sys/kernel/mm/transparent_hugepage/enabled", "/sys/devices/system/cpu/online"}) {
    if (!Cat(candidate).empty()) {
      sys = candidate;
      break;
    }
  }
  if (sys.empty()) GTEST_SKIP() << "no readable /sys file here";
  std::string dst = dir + "/sysfile";
  // Pulled: the remote end is the source this time.
  testing::ProcessResult r = RunBraid({Remote(sys), dst});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(testing::ReadWhole(dst), Cat(sys));
}

TEST_F(ChangingSourceTest, ProcAndSysFilesInsideATreeArriveAsCatReadsThem) {
  // -r -L through links: streams among the regular files of a tree, at both ends.
  Sleeper sleeper;
  ASSERT_GT(sleeper.pid(), 0);
  std::string proc = "/proc/" + std::to_string(sleeper.pid()) + "/status";
  ASSERT_TRUE(Asleep(proc));
  std::string sys = "/sys/devices/system/cpu/online";
  if (Cat(sys).empty()) GTEST_SKIP() << "no " << sys << " here";
  std::string tree = testing::MakeTree(
      dir + "/tree", {testing::TreeFile("a/plain", 100000), testing::TreeLink("a/status", proc),
                      testing::TreeLink("b/online", sys)});
  std::string before = Cat(proc);
  testing::ProcessResult r = RunBraid({"-r", "-L", "-e", tree, Remote(dir + "/copy")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string status = testing::ReadWhole(dir + "/copy/a/status");
  EXPECT_TRUE(StillStatus(status) == StillStatus(Cat(proc)) ||
              StillStatus(status) == StillStatus(before))
      << status;
  EXPECT_EQ(testing::ReadWhole(dir + "/copy/b/online"), Cat(sys));
  EXPECT_TRUE(SameContents(tree + "/a/plain", dir + "/copy/a/plain"));
}

}  // namespace
}  // namespace braid
