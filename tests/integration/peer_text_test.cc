// Peer text is data (issue 17): what a hostile source says (a warning, an
// error, its stderr) and names from a file list reach the user's terminal
// with their escape sequences shown, never obeyed, and no line a peer writes
// can pass for one of braid's own. The fake source (braid_fake_serve
// escape-*) sends a forged title, a screen clear, a line break and a forged
// summary; the checks are on the bytes braid wrote, to pipes and to a
// pseudo-terminal.

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "braid/error.h"
#include "support/hostile_fixture.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

namespace fs = std::filesystem;
using PeerTextTest = HostileTest;

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

/// True if no byte of `bytes` would make a terminal act: no ESC, no BEL, no
/// 8-bit or UTF-8 C1 control (CR and LF are braid's own line ends).
bool NothingATerminalObeys(const std::string& bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c == '\n' || c == '\r') continue;
    if (c < 0x20 || c == 0x7f) return false;
    if (c == 0xc2 && i + 1 < bytes.size() && static_cast<unsigned char>(bytes[i + 1]) <= 0x9f) {
      return false;
    }
  }
  return true;
}

/// True if some line of `text` starts with `prefix`: a peer's line passing for braid's own.
bool SomeLineStartsWith(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t cr = line.rfind('\r');  // the bar redraws with CR
    if (line.compare(cr == std::string::npos ? 0 : cr + 1, prefix.size(), prefix) == 0) {
      return true;
    }
  }
  return false;
}

constexpr char kForgedSummary[] = "braid: copied 1.00 TiB";
constexpr char kShownTitle[] = "\\x1b]0;pwned\\x07\\x1b[2Jfine\\x0abraid: copied 1.00 TiB";

TEST_F(PeerTextTest, AWarningIsShownWithItsEscapesVisible) {
  ProcessResult r = RunFakeSource("escape-warning", "want", {"-v"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(NothingATerminalObeys(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, std::string("braid: warning: ") + kShownTitle)) << r.err;
  EXPECT_FALSE(SomeLineStartsWith(r.err, kForgedSummary)) << r.err;
  EXPECT_TRUE(Has(r.err, "\\xc2\\x9b")) << r.err;
}

TEST_F(PeerTextTest, AnErrorIsShownWithItsEscapesVisible) {
  ProcessResult r = RunFakeSource("escape-error", "want");
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << r.err;
  EXPECT_TRUE(NothingATerminalObeys(r.err)) << r.err;
  EXPECT_TRUE(Has(r.err, kShownTitle)) << r.err;
  EXPECT_FALSE(SomeLineStartsWith(r.err, kForgedSummary)) << r.err;
}

TEST_F(PeerTextTest, AnErrorInJsonIsEscapedAsJsonDoes) {
  ProcessResult r = RunFakeSource("escape-error", "want", {"--json"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kSourceUnreadable)) << r.err;
  EXPECT_TRUE(NothingATerminalObeys(r.out)) << r.out;
  EXPECT_TRUE(Has(r.out, "\\u001b]0;pwned\\u0007\\u001b[2Jfine\\nbraid: copied")) << r.out;
  EXPECT_TRUE(Has(r.out, "\\u009b")) << r.out;
}

TEST_F(PeerTextTest, RemoteStderrIsShownLineByLineUnderItsHost) {
  ProcessResult r = RunFakeSource("escape-stderr", "want");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(NothingATerminalObeys(r.err)) << r.err;
  // The forged summary still arrives, but as a line that names the peer.
  EXPECT_TRUE(Has(r.err, ": \\x1b]0;pwned\\x07\\x1b[2Jfine\n")) << r.err;
  EXPECT_TRUE(Has(r.err, ": braid: copied 1.00 TiB in 1 files\\xc2\\x9b\n")) << r.err;
  EXPECT_FALSE(SomeLineStartsWith(r.err, kForgedSummary)) << r.err;
}

TEST_F(PeerTextTest, AtATerminalNothingThePeerSaysIsObeyed) {
  for (const char* scenario : {"escape-warning", "escape-error", "escape-stderr"}) {
    SCOPED_TRACE(scenario);
    fs::remove_all(guard_.target() + "/want");
    ProcessResult r = RunBraidInTerminal(FakeSourceArgs(scenario, "want"), {}, 30);
    EXPECT_FALSE(r.timed_out) << r.err;
    EXPECT_TRUE(NothingATerminalObeys(r.out)) << r.out;
    EXPECT_TRUE(Has(r.out, "\\x1b]0;pwned")) << r.out;
    EXPECT_FALSE(SomeLineStartsWith(r.out, kForgedSummary)) << r.out;
  }
}

TEST_F(PeerTextTest, FileNamesInDigestLinesAreShownWithTheirEscapesVisible) {
  // A real source whose file name carries a screen clear and a line break.
  const std::string name = "a\x1b[2Jb\nbraid: copied 1.00 TiB";
  fs::create_directories(dir + "/src");
  WriteText(dir + "/src/" + name, "some bytes\n");
  ProcessResult r = RunBraid({"-r", "-e", dir + "/src", Remote(dir + "/dst")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(NothingATerminalObeys(r.out)) << r.out;
  // md5sum's escaping for the line break, under its leading backslash; the
  // escape sequence shown as \xHH (which md5sum -c refuses, as it should).
  EXPECT_EQ(r.out.rfind("\\", 0), 0u) << r.out;
  EXPECT_TRUE(Has(r.out, "/dst/a\\x1b[2Jb\\nbraid: copied 1.00 TiB\n")) << r.out;
  EXPECT_FALSE(SomeLineStartsWith(r.out, kForgedSummary)) << r.out;
  EXPECT_EQ(ReadWhole(dir + "/dst/" + name), "some bytes\n");
}

}  // namespace
}  // namespace braid::testing
