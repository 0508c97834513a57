// Resume under attack: a malicious agent hands a real source server a
// resume list that names ranges past the file and files that do not exist,
// a malicious sink asks again for data outside the file list, and hostile
// journals lie beside the target. braid must reject or ignore each, never
// crash, and (for journals) still make a byte-identical copy.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "resume/resume_journal.h"
#include "security/crypto/payload_checksum.h"
#include "source/source_fingerprint.h"
#include "support/fake_agent.h"
#include "support/hostile_fixture.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

constexpr std::uint64_t kSmall = (1u << 20) + 5;  // a short last block
constexpr std::uint32_t kBlock = 64u << 10;

class HostileResumeTest : public HostileTest {
 protected:
  std::string logs() const { return guard_.root() + "/logs"; }

  /// A real source of `src` told to start with `resume`, streaming to a fake sink.
  struct Started {
    std::unique_ptr<ServeChild> source;
    FakeListener listener;
    UniqueFd stream;
  };
  void Start(Started& s, const std::string& src, const std::vector<ResumeEntry>& resume,
             const TransferParams& p) {
    s.source = std::make_unique<ServeChild>(logs());
    ASSERT_TRUE(s.source->Greet());
    ASSERT_EQ(OpenSource(*s.source, {src}).size(), 1u);
    s.source->control().Send(StartFor(s.listener.port(), p, resume));
    s.stream = s.listener.Accept(p.secret, p.session, 1, 10);
    ASSERT_TRUE(s.stream.valid());
  }
  /// Reads frames up to the first pass end; the bytes of file 0 by offset.
  std::string ReadPass(int fd, std::uint64_t size, bool* ended) {
    std::string got(static_cast<std::size_t>(size), '\0');
    *ended = false;
    for (int i = 0; i < 10000; ++i) {
      std::optional<ReceivedFrame> f = ReadFrame(fd, kBlock, 10);
      if (!f) break;
      if (f->header.type == FrameType::kPassEnd) return got;
      if (f->header.type == FrameType::kFileEnd) {
        EXPECT_EQ(f->header.offset, size);
        *ended = true;
        continue;
      }
      EXPECT_EQ(PayloadChecksum(f->payload), f->header.checksum);
      EXPECT_EQ(f->header.file_id, 0u);
      EXPECT_LE(f->header.offset + f->payload.size(), size);
      if (f->header.offset + f->payload.size() > size) break;
      got.replace(static_cast<std::size_t>(f->header.offset), f->payload.size(),
                  reinterpret_cast<const char*>(f->payload.data()), f->payload.size());
    }
    ADD_FAILURE() << "no pass end from the source";
    return got;
  }
};

TEST_F(HostileResumeTest, ResumeListPastTheFileAndForUnknownIdsIsIgnored) {
  std::string src = guard_.root() + "/small.bin";
  WritePatternFile(src, kSmall, 3);
  guard_.Rearm();
  TransferParams p = TestParams(1, kBlock);
  std::vector<ResumeEntry> resume{
      ResumeEntry::Partial(0, {{kSmall + 100, kSmall + 200}, {1ull << 40, (1ull << 40) + 1}}),
      ResumeEntry::Complete(7),
      ResumeEntry::Partial(99, {{0, 1ull << 40}}),
  };
  Started s;
  Start(s, src, resume, p);
  // Nothing of file 0 is inside a kept range, and ids 7 and 99 do not
  // exist: the source sends the whole file, as if no list had come.
  bool ended = false;
  std::string got = ReadPass(s.stream.get(), kSmall, &ended);
  EXPECT_TRUE(ended);
  EXPECT_TRUE(got == ReadWhole(src)) << "the source did not send the whole file";
  ::shutdown(s.stream.get(), SHUT_WR);  // the sink has everything
  std::optional<ErrorMessage> error;
  EXPECT_TRUE(s.source->control().Await<Done>(&error)) << (error ? error->message : "");
  s.source->control().Send(Bye{});
  EXPECT_EQ(s.source->Wait(10), 0) << s.source->err();
  ExpectNothingOutside();
}

TEST_F(HostileResumeTest, ResendOutsideTheFileListIsAProtocolError) {
  std::string src = guard_.root() + "/small.bin";
  WritePatternFile(src, kSmall, 5);
  guard_.Rearm();
  for (ResendRange bad : {ResendRange{0, kSmall, 100}, ResendRange{0, 10, ~0ull},
                          ResendRange{3, 0, 10}, ResendRange{0, kSmall + 1, 0}}) {
    SCOPED_TRACE(std::to_string(bad.file_id) + " " + std::to_string(bad.offset));
    TransferParams p = TestParams(1, kBlock);
    Started s;
    Start(s, src, {}, p);
    bool ended = false;
    ReadPass(s.stream.get(), kSmall, &ended);
    std::vector<std::uint8_t> payload = EncodeResendList(std::vector<ResendRange>{bad});
    SendFrame(s.stream.get(),
              FrameHeader{.type = FrameType::kResend,
                          .length = static_cast<std::uint32_t>(payload.size()),
                          .offset = 1},
              payload);
    std::optional<ErrorMessage> error;
    EXPECT_FALSE(s.source->control().Await<Done>(&error));
    ASSERT_TRUE(error);
    EXPECT_EQ(error->code, ErrorCode::kProtocol) << error->message;
    EXPECT_NE(error->message.find("protocol error"), std::string::npos) << error->message;
    s.source->control().Send(Abort{"test over"});
    EXPECT_EQ(s.source->Wait(10), kServeEndedWithoutBye) << s.source->err();
  }
  ExpectNothingOutside();
}

// --- hostile journals beside the target ------------------------------------

class HostileJournalTest : public HostileResumeTest {
 protected:
  static constexpr std::uint64_t kBig = 8u << 20;
  static constexpr std::uint32_t kJournalBlock = 1u << 20;

  void SetUp() override {
    src_ = guard_.root() + "/src/big.bin";
    std::filesystem::create_directories(guard_.root() + "/src");
    WritePatternFile(src_, kBig, 21);
    part_ = guard_.target() + "/big.bin.braid-part";
    journal_ = guard_.target() + "/big.bin.braid-journal";
  }
  /// The header a journal of this source would have.
  JournalHeader HeaderForSource() const {
    struct stat st {};
    ::stat(src_.c_str(), &st);
    UniqueFd fd(::open(src_.c_str(), O_RDONLY | O_CLOEXEC));
    JournalHeader h;
    h.source = {kBig, st.st_mtim.tv_sec, static_cast<std::uint32_t>(st.st_mtim.tv_nsec),
                SourceFingerprint(fd.get(), kBig)};
    h.block_size = kJournalBlock;
    return h;
  }
  static void WriteBytes(const std::string& path, const std::vector<std::uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  /// The real agent copies src/big.bin into target/; the copy must be exact.
  ProcessResult CopyAndCheck() {
    guard_.Rearm();
    ProcessResult r = RunBraid({"-v", src_, guard_.target() + "/"}, {}, "", 60);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string why;
    EXPECT_TRUE(SameContents(src_, guard_.target() + "/big.bin", &why)) << why;
    EXPECT_FALSE(Exists(part_));
    EXPECT_FALSE(Exists(journal_));
    ExpectNothingOutside();
    return r;
  }
  std::string src_;
  std::string part_;
  std::string journal_;
};

TEST_F(HostileJournalTest, GarbageJournalIsIgnored) {
  WritePatternFile(part_, kBig, 99);
  WritePatternFile(journal_, 4096, 98);
  ProcessResult r = CopyAndCheck();
  EXPECT_NE(r.err.find("ignoring the resume journal"), std::string::npos) << r.err;
}

TEST_F(HostileJournalTest, JournalClaimingBlocksThePartialLacksIsResent) {
  // A journal for this very source whose records name every block with the
  // source's true checksums, beside a partial file of zeros.
  WriteBytes(part_, std::vector<std::uint8_t>(kBig, 0));
  JournalHeader h = HeaderForSource();
  std::string data = ReadWhole(src_);
  std::vector<JournalRecord> records;
  for (std::uint64_t at = 0; at < kBig; at += kJournalBlock) {
    records.push_back({at, kJournalBlock,
                       PayloadChecksum({reinterpret_cast<const std::uint8_t*>(data.data()) + at,
                                        kJournalBlock})});
  }
  std::vector<std::uint8_t> bytes = EncodeJournalHeader(h);
  std::vector<std::uint8_t> tail = EncodeJournalRecords(h, records);
  bytes.insert(bytes.end(), tail.begin(), tail.end());
  WriteBytes(journal_, bytes);
  ProcessResult r = CopyAndCheck();
  EXPECT_NE(r.err.find("8 kept blocks failed verification"), std::string::npos) << r.err;
}

TEST_F(HostileJournalTest, JournalWithHugeRecordCountsIsCapped) {
  // 600,000 one-byte records, each true of the partial file, but disjoint:
  // more kept ranges than the protocol carries (2^19). The sink must drop
  // them (sending the file again), not overflow SinkReady or crash.
  std::string data = ReadWhole(src_);
  std::vector<std::uint8_t> partial(data.begin(), data.end());
  WriteBytes(part_, partial);
  JournalHeader h = HeaderForSource();
  std::vector<JournalRecord> records;
  constexpr std::uint64_t kRecords = 600000;
  records.reserve(kRecords);
  for (std::uint64_t i = 0; i < kRecords; ++i) {
    std::uint64_t at = 2 * i;
    records.push_back({at, 1, PayloadChecksum({partial.data() + at, 1})});
  }
  std::vector<std::uint8_t> bytes = EncodeJournalHeader(h);
  std::vector<std::uint8_t> tail = EncodeJournalRecords(h, records);
  bytes.insert(bytes.end(), tail.begin(), tail.end());
  WriteBytes(journal_, bytes);
  CopyAndCheck();
}

}  // namespace
}  // namespace braid::testing
