// Hostile file lists: a malicious source (braid_fake_serve over ssh, seen by
// the real agent and a real local sink) and a malicious agent (the test,
// talking to a real `braid --serve` child) announce names braid must never
// create. Each test checks the exit code and message and that nothing
// outside the target changed.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "braid/error.h"
#include "support/fake_agent.h"
#include "support/hostile_fixture.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

namespace fs = std::filesystem;
using HostileFileListTest = HostileTest;

constexpr std::uint64_t kFakeSize = 100000;  // braid_fake_serve's file size

bool Has(const std::string& text, const std::string& what) {
  return text.find(what) != std::string::npos;
}

TEST_F(HostileFileListTest, HonestFakeSourceCopies) {
  // The harness itself: the fake source, played honestly, makes a good copy.
  ProcessResult r = RunFakeSource("honest", "want");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadWhole(guard_.target() + "/want"), FakeContent(kFakeSize));
  ExpectNothingOutside();
}

TEST_F(HostileFileListTest, UnsafeNamesAreRejectedByTheAgent) {
  for (const char* scenario : {"dotdot", "absolute", "nul", "empty-component", "dot-component"}) {
    SCOPED_TRACE(scenario);
    ProcessResult r = RunFakeSource(scenario, "want");
    EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kProtocol)) << r.err;
    EXPECT_TRUE(Has(r.err, "unsafe file name")) << r.err;
    EXPECT_EQ(ListDir(guard_.target()), "");
    ExpectNothingOutside();
  }
}

TEST_F(HostileFileListTest, NameNotAskedForIsRejected) {
  // scp's CVE-2019-6111: the source answers "want" with a file of another name.
  ProcessResult r = RunFakeSource("wrong-top", "want");
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kProtocol)) << r.err;
  EXPECT_TRUE(Has(r.err, "not asked for")) << r.err;
  EXPECT_EQ(ListDir(guard_.target()), "");
  ExpectNothingOutside();
}

TEST_F(HostileFileListTest, DirectoryWithoutRecursiveIsRejected) {
  ProcessResult r = RunFakeSource("dir-without-r", "want");
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kProtocol)) << r.err;
  EXPECT_TRUE(Has(r.err, "not asked for")) << r.err;
  EXPECT_EQ(ListDir(guard_.target()), "");
  ExpectNothingOutside();
}

TEST_F(HostileFileListTest, DuplicateAndDisorderedIdsAreRejected) {
  for (const char* scenario : {"dup-ids", "ids-out-of-order"}) {
    SCOPED_TRACE(scenario);
    ProcessResult r = RunFakeSource(scenario, "want");
    EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kProtocol)) << r.err;
    EXPECT_TRUE(Has(r.err, "out of order")) << r.err;
    EXPECT_EQ(ListDir(guard_.target()), "");
    ExpectNothingOutside();
  }
}

TEST_F(HostileFileListTest, FileUnderADeclaredSymlinkIsRejected) {
  ProcessResult r = RunFakeSource("symlink-then-file", "want", {"-r"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kProtocol)) << r.err;
  EXPECT_TRUE(Has(r.err, "not a directory of the list")) << r.err;
  EXPECT_FALSE(Exists(guard_.outside() + "/evil"));
  ExpectNothingOutside();
}

TEST_F(HostileFileListTest, NoWriteThroughALinkInTheTarget) {
  // target/dir -> outside already exists; the source sends dir/evil, first
  // without listing dir, then listing it as a directory.
  fs::create_directory_symlink(guard_.outside(), guard_.target() + "/dir");
  guard_.Rearm();
  ProcessResult r = RunFakeSource("file-in-unlisted-dir", "dir", {"-r"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kProtocol)) << r.err;
  EXPECT_TRUE(Has(r.err, "not a directory of the list")) << r.err;
  ExpectNothingOutside();

  r = RunFakeSource("file-in-listed-dir", "dir", {"-r"});
  // The link is in the way.
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kTargetUnwritable)) << r.err;
  EXPECT_TRUE(Has(r.err, "File exists")) << r.err;
  EXPECT_FALSE(Exists(guard_.outside() + "/evil"));
  ExpectNothingOutside();
}

// --- a malicious agent talking to a real sink -------------------------------

class HostileAgentListTest : public HostileTest {
 protected:
  /// Drives a real sink with `list`; when it accepts, sends every regular
  /// file honestly, so a list it should have refused is really written.
  /// Returns the sink's error code (0 when it finished).
  int DriveSink(const std::vector<FileEntry>& list, std::string* message = nullptr) {
    ServeChild sink(guard_.root() + "/logs");
    EXPECT_TRUE(sink.Greet());
    TransferParams p = TestParams();
    std::optional<ErrorMessage> error;
    std::optional<SinkReady> ready =
        OpenSink(sink, list, SinkOpenFor(guard_.target() + "/", p), &error);
    if (ready) {
      UniqueFd s = ConnectStream(ready->port, p.secret, p.session, 0);
      if (s.valid() && SendFiles(s.get(), list, p.block_size)) FinishPasses(s.get(), p.block_size);
      sink.control().Await<Done>(&error);
    }
    if (error) {
      sink.control().Send(Abort{"test over"});
    } else {
      sink.control().Send(Bye{});
    }
    EXPECT_NE(sink.Wait(10), -1) << "the sink did not end";
    if (message != nullptr && error) *message = error->message;
    return error ? static_cast<int>(error->code) : 0;
  }
};

TEST_F(HostileAgentListTest, RawUnsafeNamesEndTheServer) {
  for (std::string name :
       {std::string("../outside/evil"), guard_.outside() + "/evil", std::string("a\0b", 3),
        std::string("a//b"), std::string("a/./b"), std::string("a/..")}) {
    SCOPED_TRACE(name);
    ServeChild sink(guard_.root() + "/logs");
    ASSERT_TRUE(sink.Greet());
    std::vector<std::uint8_t> body =
        EncodeRawFileList({FakeEntry(0, FileKind::kRegular, name, 10)}, true);
    sink.control().SendRaw(static_cast<std::uint32_t>(body.size()), body);
    EXPECT_FALSE(sink.control().Receive());  // no answer: the server hangs up
    // The session ends, nothing prepared.
    EXPECT_EQ(sink.Wait(10), kServeEndedWithoutBye) << sink.err();
    EXPECT_EQ(ListDir(guard_.target()), "");
    ExpectNothingOutside();
  }
}

TEST_F(HostileAgentListTest, SinkRejectsAFileUnderASymlinkOfTheList) {
  FileEntry link = FakeEntry(1, FileKind::kSymlink, "want/l");
  link.link_target = guard_.outside();
  std::string why;
  int code = DriveSink({FakeEntry(0, FileKind::kDirectory, "want"), link,
                        FakeEntry(2, FileKind::kRegular, "want/l/evil", 1000)},
                       &why);
  EXPECT_EQ(code, static_cast<int>(ErrorCode::kProtocol)) << why;
  EXPECT_TRUE(Has(why, "not a directory of the list")) << why;
  EXPECT_FALSE(Exists(guard_.outside() + "/evil"));
  ExpectNothingOutside();
}

TEST_F(HostileAgentListTest, SinkRejectsAFileUnderALinkInTheTarget) {
  fs::create_directory_symlink(guard_.outside(), guard_.target() + "/dir");
  guard_.Rearm();
  std::string why;
  int code = DriveSink({FakeEntry(0, FileKind::kRegular, "dir/evil", 1000)}, &why);
  EXPECT_EQ(code, static_cast<int>(ErrorCode::kProtocol)) << why;
  ExpectNothingOutside();
}

TEST_F(HostileAgentListTest, SinkRejectsDuplicatePaths) {
  std::string why;
  int code = DriveSink({FakeEntry(0, FileKind::kRegular, "want", 1000),
                        FakeEntry(1, FileKind::kRegular, "want", 2000)},
                       &why);
  EXPECT_EQ(code, static_cast<int>(ErrorCode::kProtocol)) << why;
  EXPECT_TRUE(Has(why, "twice")) << why;
  ExpectNothingOutside();
}

TEST_F(HostileAgentListTest, SinkRejectsIdsOutOfOrder) {
  std::string why;
  int code = DriveSink({FakeEntry(1, FileKind::kRegular, "want", 1000)}, &why);
  EXPECT_EQ(code, static_cast<int>(ErrorCode::kProtocol)) << why;
  EXPECT_EQ(ListDir(guard_.target()), "");
  ExpectNothingOutside();
}

TEST_F(HostileAgentListTest, OversizedControlMessageEndsTheServer) {
  ServeChild sink(guard_.root() + "/logs");
  ASSERT_TRUE(sink.Greet());
  std::vector<std::uint8_t> body(64, 0);
  sink.control().SendRaw(static_cast<std::uint32_t>(kMaxControlMessage + 1), body);
  EXPECT_EQ(sink.Wait(10), kServeEndedWithoutBye) << sink.err();
  ExpectNothingOutside();
}

TEST_F(HostileAgentListTest, ListenAddressThatIsAHostNameIsRefused) {
  // No DNS lookup on the agent's say-so: only numeric addresses.
  ServeChild sink(guard_.root() + "/logs");
  ASSERT_TRUE(sink.Greet());
  SinkOpen open = SinkOpenFor(guard_.target() + "/", TestParams());
  open.listen_address = "localhost";
  std::optional<ErrorMessage> error;
  EXPECT_FALSE(OpenSink(sink, {FakeEntry(0, FileKind::kRegular, "want", 10)}, open, &error));
  ASSERT_TRUE(error);
  EXPECT_EQ(error->code, ErrorCode::kDataConnect) << error->message;
  EXPECT_TRUE(Has(error->message, "not a numeric address")) << error->message;
  sink.control().Send(Bye{});
  sink.Wait(10);
  ExpectNothingOutside();
}

}  // namespace
}  // namespace braid::testing
