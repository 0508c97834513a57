// Hostile data streams from a malicious source server: braid_fake_serve,
// started by the real agent over ssh, authenticates its stream to the real
// local sink with the real handshake and then sends frames that break the
// protocol. Each must end the copy with the documented exit code, leave no
// file under the target's name, and write nothing outside the target.

#include <gtest/gtest.h>

#include <chrono>

#include "braid/error.h"
#include "security/crypto/file_digest.h"
#include "support/fake_peer.h"
#include "support/hostile_fixture.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

using HostileDataTest = HostileTest;

struct Case {
  const char* scenario;
  ErrorCode error;      ///< the copy exits with ExitCodeFor(error)
  const char* message;  ///< part of braid's last line
  bool recursive = false;
  const char* hash = nullptr;  ///< -E NAME
  bool compress = false;       ///< -c
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.scenario; }

class HostileFrameTest : public HostileTest, public ::testing::WithParamInterface<Case> {};

TEST_P(HostileFrameTest, IsRejected) {
  const Case& c = GetParam();
  std::vector<std::string> extra;
  if (c.recursive) extra.push_back("-r");
  if (c.hash != nullptr) extra.insert(extra.end(), {"-E", c.hash});
  if (c.compress) extra.push_back("-c");
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = RunFakeSource(c.scenario, "want", extra);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, ExitCodeFor(c.error)) << r.err;
  EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  EXPECT_LT(secs, 20) << "a hostile stream should end the copy promptly";
  // No file under its final name; the small partial file is removed.
  std::string file = guard_.target() + (c.recursive ? "/want/f" : "/want");
  EXPECT_FALSE(Exists(file)) << ListDir(guard_.target());
  EXPECT_FALSE(Exists(file + ".braid-part"));
  ExpectNothingOutside();
}

INSTANTIATE_TEST_SUITE_P(
    Frames, HostileFrameTest,
    ::testing::Values(
        Case{"offset-past-size", ErrorCode::kProtocol, "block past the announced size"},
        Case{"block-crosses-end", ErrorCode::kProtocol, "block past the announced size"},
        Case{"data-unknown-id", ErrorCode::kProtocol, "not in the file list"},
        Case{"data-for-directory", ErrorCode::kProtocol, "data for a directory or link", true},
        Case{"oversized-frame", ErrorCode::kProtocol, "data frame length out of range"},
        Case{"lying-checksum", ErrorCode::kIntegrity, "block checksum mismatch"},
        // A valid zlib block, but the session was opened without -c.
        Case{"compressed-not-negotiated", ErrorCode::kProtocol,
             "protocol error: compressed block not negotiated"},
        // With -c: a block that inflates to twice its stated length.
        Case{"compressed-bomb", ErrorCode::kProtocol,
             "protocol error: a compressed block inflates to more than its stated 65536 bytes",
             false, nullptr, true},
        Case{"file-end-wrong-size", ErrorCode::kProtocol,
             "file end disagrees with the announced size"},
        // Fewer bytes than announced: the sink asks again, the source never
        // delivers, and the sink gives up after idle passes instead of hanging.
        Case{"short-pass", ErrorCode::kProtocol, "does not send the data asked for again"},
        // The decoder allows up to 32 bytes; the sink wants sha256's 32.
        Case{"digest-wrong-length", ErrorCode::kProtocol,
             "carries a digest of 16 bytes; sha256 has 32", false, "sha256"},
        // A digest with no hash asked for is as wrong as a short one.
        Case{"digest-wrong-length", ErrorCode::kProtocol,
             "carries a digest of 16 bytes; none has 0"}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = info.param.scenario;
      if (info.param.hash != nullptr) name += std::string("-") + info.param.hash;
      for (char& ch : name) {
        if (ch == '-') ch = '_';
      }
      return name;
    });

TEST_F(HostileDataTest, DigestMismatchNamesTheFileTheAlgorithmAndBothValues) {
  ProcessResult r = RunFakeSource("digest-mismatch", "want", {"-E", "sha256"});
  EXPECT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kIntegrity)) << r.err;
  std::string content = FakeContent(100000);
  FileDigest real(HashAlgorithm::kSha256);
  real.Update(content.data(), content.size());
  std::string lied;
  for (int i = 0; i < 32; ++i) lied += "ab";
  std::string want = "SHA256 mismatch for " + guard_.target() + "/want: source " + lied +
                     ", copy " + ToHex(real.Finish());
  EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
  // Not renamed into place, and the partial file is gone.
  EXPECT_FALSE(Exists(guard_.target() + "/want")) << ListDir(guard_.target());
  EXPECT_FALSE(Exists(guard_.target() + "/want.braid-part"));
  ExpectNothingOutside();
}

// A stream whose connection timed out at the source alone (its kernel gave
// up retransmitting and tells the sink nothing) still looks open at the sink.
// The source's pass ends say how many streams it still has, so the sink
// finishes without that one instead of waiting on it until the stall watch.
TEST_F(HostileDataTest, AStreamGoneAtTheSourceAloneDoesNotHoldUpTheSink) {
  std::vector<std::string> args = FakeSourceArgs("orphan-stream", "want");
  ASSERT_EQ(args[0], "-s");
  args[1] = "2";  // a stream for the data, and one that stays silent
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = RunBraid(args, {}, "", 30);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(secs, 10) << "the stall watch (120 s) must not be what ends it";
  EXPECT_EQ(ReadWhole(guard_.target() + "/want"), FakeContent(100000));
  ExpectNothingOutside();
}

TEST_F(HostileDataTest, OversizedControlMessageFromTheSource) {
  ProcessResult r = RunFakeSource("oversized-control", "want");
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kProtocol)) << r.err;
  EXPECT_NE(r.err.find("control message length out of range"), std::string::npos) << r.err;
  EXPECT_EQ(ListDir(guard_.target()), "");
  ExpectNothingOutside();
}

TEST_F(HostileDataTest, SourceThatConnectsAndSendsNothingIsBoundedByTheStallTimeout) {
  auto start = std::chrono::steady_clock::now();
  ProcessResult r = RunFakeSource("stall-silent", "want", {"--stall-timeout", "2"});
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.timed_out) << r.err;
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kStalled)) << r.err;
  EXPECT_LT(secs, 15) << r.err;
  EXPECT_FALSE(Exists(guard_.target() + "/want"));
  ExpectNothingOutside();
}

}  // namespace
}  // namespace braid::testing
