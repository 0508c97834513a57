// The bash completion (packaging/bash-completion/braid) run by bash as it
// would be at a prompt: remote paths are listed over ssh from the private
// sshd the way scp's completion lists them, the names escaped for the local
// shell, and a typed word is never run by the remote shell.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

namespace fs = std::filesystem;
using testing::ProcessResult;
using testing::RunProcess;
using testing::WriteText;

class CompletionTest : public testing::SshdTest {
 protected:
  void SetUp() override {
    // ssh reads the passwd home's config, not $HOME's: a wrapper names the fixture's.
    bin_ = dir + "/bin";
    fs::create_directories(bin_);
    WriteText(bin_ + "/ssh",
              "#!/bin/sh\nexec /usr/bin/ssh -F '" + sshd.home() + "/.ssh/config' \"$@\"\n");
    ::chmod((bin_ + "/ssh").c_str(), 0755);
  }

  /// COMPREPLY, one a line, for the command line `line` completed at its end.
  ProcessResult Complete(const std::string& line) const {
    const std::string script = R"(
source "$1"
COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
read -r -a COMP_WORDS <<<"$COMP_LINE"
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_braid
printf '%s\n' "${COMPREPLY[@]}")";
    return RunProcess({"bash", "-c", script, "bash",
                       std::string(BRAID_SOURCE_DIR) + "/packaging/bash-completion/braid", line},
                      {{"PATH", bin_ + ":/usr/bin:/bin"}, {"HOME", sshd.home()}}, "", 60);
  }

  std::string bin_;
};

TEST_F(CompletionTest, RemotePathsAreListedOverSsh) {
  fs::create_directories(dir + "/remote/subdir");
  WriteText(dir + "/remote/file one", "1");
  WriteText(dir + "/remote/file2", "2");
  WriteText(dir + "/remote/other", "3");
  ProcessResult r = Complete("braid " + Remote(dir + "/remote/fi"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // bash replaces what follows the colon; a file ends the word, a name is escaped.
  EXPECT_EQ(r.out, dir + "/remote/file\\ one \n" + dir + "/remote/file2 \n") << r.err;
  r = Complete("braid -r " + Remote(dir + "/remote/s"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, dir + "/remote/subdir/\n") << r.err;
}

TEST_F(CompletionTest, ATypedWordIsNeverRunThere) {
  fs::create_directories(dir + "/remote");
  for (const std::string& word :
       {"$(id>" + dir + "/pwned1)", "`id>" + dir + "/pwned2`", "x';id>" + dir + "/pwned3;'"}) {
    ProcessResult r = Complete("braid " + Remote(dir + "/remote/" + word));
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* name : {"pwned1", "pwned2", "pwned3"}) {
    EXPECT_FALSE(fs::exists(dir + "/" + name)) << name;
  }
}

TEST_F(CompletionTest, OptionsComeFromBraidsHelp) {
  fs::create_directories(dir + "/bin");
  fs::create_symlink(BRAID_BINARY, bin_ + "/braid");
  ProcessResult r = Complete("braid --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "--json\n--json-stream\n") << r.err;
}

}  // namespace
}  // namespace braid
