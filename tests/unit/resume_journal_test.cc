#include "resume/resume_journal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "braid/wire.h"
#include "security/crypto/payload_checksum.h"

namespace braid {
namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint64_t kU64Max = std::numeric_limits<std::uint64_t>::max();
constexpr std::size_t kH = kJournalHeaderSize;
constexpr std::size_t kR = kJournalRecordSize;

JournalHeader SampleHeader() {
  JournalHeader h;
  h.source.size = 10u << 20;
  h.source.mtime_sec = 1700000000;
  h.source.mtime_nsec = 123456789;
  h.source.fingerprint = 0x0123456789ABCDEFull;
  h.block_size = 1u << 20;
  return h;
}

std::vector<JournalRecord> SampleRecords() {
  return {{0, 1u << 20, 0x1111111111111111ull},
          {3u << 20, 1u << 20, 0x2222222222222222ull},
          {(10u << 20) - 5, 5, 0x3333333333333333ull}};  // a short last block, ending at the size
}

Bytes Concat(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Bytes Journal(const JournalHeader& h, const std::vector<JournalRecord>& records) {
  return Concat(EncodeJournalHeader(h), EncodeJournalRecords(h, records));
}

Bytes Prefix(const Bytes& b, std::size_t n) {
  return Bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
}

void ExpectHeaderEq(const JournalHeader& a, const JournalHeader& b) {
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.block_size, b.block_size);
}

/// Every field of a header, including the ones a valid encoder never sets, with
/// a correct check value: lets a test reach the checks behind the checksum.
struct RawHeader {
  std::array<std::uint8_t, 8> magic = {'B', 'R', 'A', 'I', 'D', 'J', 'N', 'L'};
  std::uint16_t version = 1;
  std::uint16_t reserved = 0;
  std::uint32_t block_size = 1u << 20;
  std::uint64_t size = 10u << 20;
  std::uint64_t mtime_sec = 1700000000;
  std::uint32_t mtime_nsec = 123456789;
  std::uint32_t reserved2 = 0;
  std::uint64_t fingerprint = 0x0123456789ABCDEFull;

  Bytes Encode() const {
    WireWriter w;
    w.Bytes(magic);
    w.U16(version);
    w.U16(reserved);
    w.U32(block_size);
    w.U64(size);
    w.U64(mtime_sec);
    w.U32(mtime_nsec);
    w.U32(reserved2);
    w.U64(fingerprint);
    w.U64(PayloadChecksum(w.data()));
    return w.Take();
  }
};

std::uint64_t BigEndian64(std::span<const std::uint8_t> b) {
  std::uint64_t v = 0;
  for (std::uint8_t byte : b.first(8)) v = (v << 8) | byte;
  return v;
}

/// One record with a correct check value for `header_bytes`, whatever its fields.
Bytes RawRecord(const Bytes& header_bytes, std::uint64_t offset, std::uint32_t length,
                std::uint32_t reserved, std::uint64_t checksum) {
  WireWriter w;
  w.U64(offset);
  w.U32(length);
  w.U32(reserved);
  w.U64(checksum);
  std::uint64_t header_check = BigEndian64(std::span(header_bytes).subspan(kH - 8));
  w.U64(PayloadChecksum(w.data()) ^ header_check);
  return w.Take();
}

std::optional<DecodedJournal> Decode(const Bytes& b, std::string* why = nullptr) {
  return DecodeJournal(b, why);
}

/// Decodes and returns why the header was rejected; fails the test if it was not.
std::string RejectReason(const Bytes& b) {
  std::string why;
  std::optional<DecodedJournal> d = Decode(b, &why);
  EXPECT_FALSE(d.has_value()) << "journal accepted";
  EXPECT_FALSE(why.empty());
  return why;
}

// ---------------------------------------------------------------- layout and round trips

TEST(ResumeJournalTest, HeaderLayoutIsFixedAndBigEndian) {
  Bytes h = EncodeJournalHeader(SampleHeader());
  ASSERT_EQ(h.size(), kH);
  EXPECT_EQ(h, RawHeader{}.Encode());
  EXPECT_EQ(std::string(h.begin(), h.begin() + 8), "BRAIDJNL");
  EXPECT_EQ(h[8], 0);
  EXPECT_EQ(h[9], 1);  // version
  EXPECT_EQ(h[10], 0);
  EXPECT_EQ(h[11], 0);
  EXPECT_EQ((Bytes{h.begin() + 12, h.begin() + 16}), (Bytes{0x00, 0x10, 0x00, 0x00}));
  EXPECT_EQ(BigEndian64(std::span(h).subspan(16)), 10u << 20);
  EXPECT_EQ(BigEndian64(std::span(h).subspan(40)), 0x0123456789ABCDEFull);
  EXPECT_EQ(BigEndian64(std::span(h).subspan(48)), PayloadChecksum(std::span(h).first(48)));
}

TEST(ResumeJournalTest, RecordLayoutIsFixedAndTiedToTheHeader) {
  JournalHeader header = SampleHeader();
  Bytes h = EncodeJournalHeader(header);
  Bytes r = EncodeJournalRecords(
      header, std::vector<JournalRecord>{{0x0102030405060708ull, 0x0A0B0C0D, 0xFEEDull}});
  ASSERT_EQ(r.size(), kR);
  EXPECT_EQ(r, RawRecord(h, 0x0102030405060708ull, 0x0A0B0C0D, 0, 0xFEEDull));
  EXPECT_TRUE(EncodeJournalRecords(header, {}).empty());
}

TEST(ResumeJournalTest, UnsyncedRecordHasFlagOneAndRoundTrips) {
  JournalHeader header = SampleHeader();
  Bytes h = EncodeJournalHeader(header);
  JournalRecord unsynced{4096, 512, 0xBEEFull, /*synced=*/false};
  Bytes r = EncodeJournalRecords(header, std::vector<JournalRecord>{unsynced});
  EXPECT_EQ(r, RawRecord(h, 4096, 512, 1, 0xBEEFull));
  std::optional<DecodedJournal> d = Decode(Concat(h, r));
  ASSERT_TRUE(d.has_value());
  ASSERT_EQ(d->records.size(), 1u);
  EXPECT_FALSE(d->records[0].synced);
  EXPECT_EQ(d->records[0], unsynced);
}

TEST(ResumeJournalTest, RoundTrip) {
  JournalHeader header = SampleHeader();
  Bytes b = Journal(header, SampleRecords());
  ASSERT_EQ(b.size(), kH + 3 * kR);
  std::string why = "untouched";
  std::optional<DecodedJournal> d = Decode(b, &why);
  ASSERT_TRUE(d.has_value()) << why;
  ExpectHeaderEq(d->header, header);
  EXPECT_EQ(d->records, SampleRecords());
  EXPECT_EQ(d->valid_bytes, b.size());
  EXPECT_FALSE(d->torn);
}

TEST(ResumeJournalTest, HeaderAloneIsAnEmptyJournal) {
  Bytes b = EncodeJournalHeader(SampleHeader());
  std::optional<DecodedJournal> d = Decode(b);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->records.empty());
  EXPECT_EQ(d->valid_bytes, kH);
  EXPECT_FALSE(d->torn);
}

TEST(ResumeJournalTest, ExtremeHeaderValuesRoundTrip) {
  for (std::int64_t sec : {std::numeric_limits<std::int64_t>::min(), std::int64_t{-1},
                           std::int64_t{0}, std::numeric_limits<std::int64_t>::max()}) {
    JournalHeader h;
    h.source = {kU64Max, sec, 999999999u, kU64Max};
    h.block_size = kMaxJournalBlock;
    std::vector<JournalRecord> recs = {{kU64Max - kMaxJournalBlock, kMaxJournalBlock, kU64Max}};
    std::optional<DecodedJournal> d = Decode(Journal(h, recs));
    ASSERT_TRUE(d.has_value()) << sec;
    ExpectHeaderEq(d->header, h);
    EXPECT_EQ(d->records, recs) << sec;
  }
}

TEST(ResumeJournalTest, AppendsConcatenateToTheSameJournal) {
  // The checkpointer appends records a few at a time: the pieces must add up
  // to exactly what one encoding of all of them is.
  JournalHeader header = SampleHeader();
  std::vector<JournalRecord> all = SampleRecords();
  Bytes pieces = EncodeJournalHeader(header);
  for (const JournalRecord& r : all) {
    pieces = Concat(pieces, EncodeJournalRecords(header, std::vector<JournalRecord>{r}));
  }
  EXPECT_EQ(pieces, Journal(header, all));
  std::optional<DecodedJournal> d = Decode(pieces);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->records, all);
}

TEST(ResumeJournalTest, DuplicateAndOutOfOrderRecordsAreKeptAsWritten) {
  // Blocks arrive in any order over parallel streams, and a resent block is
  // journaled again: the codec keeps them all, in order of appending.
  JournalHeader header = SampleHeader();
  std::vector<JournalRecord> recs = {
      {5u << 20, 1u << 20, 7}, {0, 1u << 20, 8}, {5u << 20, 1u << 20, 7}};
  std::optional<DecodedJournal> d = Decode(Journal(header, recs));
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->records, recs);
}

// ---------------------------------------------------------------- torn and corrupt journals

TEST(ResumeJournalTest, EveryTruncationKeepsTheIntactRecords) {
  const std::vector<JournalRecord> recs = SampleRecords();
  const Bytes full = Journal(SampleHeader(), recs);
  for (std::size_t n = 0; n <= full.size(); ++n) {
    SCOPED_TRACE("length " + std::to_string(n));
    // An exact-size copy, so a read past the end is caught by sanitizers.
    Bytes cut = Prefix(full, n);
    std::string why;
    std::optional<DecodedJournal> d = Decode(cut, &why);
    if (n < kH) {
      EXPECT_FALSE(d.has_value());
      EXPECT_FALSE(why.empty());
      continue;
    }
    ASSERT_TRUE(d.has_value()) << why;
    std::size_t whole = (n - kH) / kR;
    ASSERT_EQ(d->records.size(), whole);
    EXPECT_TRUE(std::equal(d->records.begin(), d->records.end(), recs.begin()));
    EXPECT_EQ(d->valid_bytes, kH + whole * kR);
    EXPECT_EQ(d->torn, (n - kH) % kR != 0);
  }
}

TEST(ResumeJournalTest, EveryFlippedHeaderByteIsRejected) {
  const Bytes good = Journal(SampleHeader(), SampleRecords());
  for (std::size_t at = 0; at < kH; ++at) {
    for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
      Bytes bad = good;
      bad[at] ^= mask;
      std::string why;
      EXPECT_FALSE(Decode(bad, &why).has_value()) << "byte " << at << " mask " << int{mask};
      EXPECT_FALSE(why.empty()) << "byte " << at;
    }
  }
}

TEST(ResumeJournalTest, FlippedRecordByteDropsThatRecordAndAllAfterIt) {
  const std::vector<JournalRecord> recs = SampleRecords();
  const Bytes good = Journal(SampleHeader(), recs);
  for (std::size_t k = 0; k < recs.size(); ++k) {
    for (std::size_t at = 0; at < kR; ++at) {
      for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0x80}}) {
        SCOPED_TRACE("record " + std::to_string(k) + " byte " + std::to_string(at) + " mask " +
                     std::to_string(mask));
        Bytes bad = good;
        bad[kH + k * kR + at] ^= mask;
        std::optional<DecodedJournal> d = Decode(bad);
        ASSERT_TRUE(d.has_value());
        ASSERT_EQ(d->records.size(), k);
        EXPECT_TRUE(std::equal(d->records.begin(), d->records.end(), recs.begin()));
        EXPECT_EQ(d->valid_bytes, kH + k * kR);
        EXPECT_TRUE(d->torn);
      }
    }
  }
}

TEST(ResumeJournalTest, RecordsOfAnotherSourceDoNotValidate) {
  // Records appended under one header never count under another, even when
  // the two differ in one field only: a journal cannot vouch for blocks of
  // another source's partial file.
  const JournalHeader mine = SampleHeader();
  std::vector<JournalHeader> others(6, mine);
  others[0].source.size += 1;
  others[1].source.mtime_sec += 1;
  others[2].source.mtime_nsec += 1;
  others[3].source.fingerprint ^= 1;
  others[4].block_size /= 2;
  others[5].source.mtime_sec = -others[5].source.mtime_sec;
  const std::vector<JournalRecord> recs = {{0, 4096, 1}, {4096, 4096, 2}};
  for (std::size_t i = 0; i < others.size(); ++i) {
    SCOPED_TRACE("variant " + std::to_string(i));
    Bytes spliced = Concat(EncodeJournalHeader(mine), EncodeJournalRecords(others[i], recs));
    std::optional<DecodedJournal> d = Decode(spliced);
    ASSERT_TRUE(d.has_value());  // the header itself is fine
    EXPECT_TRUE(d->records.empty());
    EXPECT_EQ(d->valid_bytes, kH);
    EXPECT_TRUE(d->torn);

    // Own records first, then a foreign one, then own ones again: only the first survive.
    Bytes mixed = Concat(Journal(mine, recs), EncodeJournalRecords(others[i], recs));
    mixed = Concat(mixed, EncodeJournalRecords(mine, recs));
    d = Decode(mixed);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->records, recs);
    EXPECT_EQ(d->valid_bytes, kH + 2 * kR);
    EXPECT_TRUE(d->torn);
  }
}

TEST(ResumeJournalTest, BadMagicIsRejected) {
  for (std::size_t at = 0; at < 8; ++at) {
    RawHeader raw;
    raw.magic[at] = static_cast<std::uint8_t>(raw.magic[at] ^ 0x20);
    EXPECT_EQ(RejectReason(raw.Encode()), "not a braid journal") << at;
  }
}

TEST(ResumeJournalTest, OtherVersionsAreRejected) {
  for (std::uint16_t version :
       {std::uint16_t{0}, std::uint16_t{2}, std::uint16_t{0x0100}, std::uint16_t{0xFFFF}}) {
    RawHeader raw;
    raw.version = version;
    EXPECT_EQ(RejectReason(raw.Encode()), "journal version not supported") << version;
  }
}

TEST(ResumeJournalTest, ReservedHeaderBitsAreRejected) {
  for (std::uint32_t bit = 1; bit != 0; bit <<= 1) {
    RawHeader raw;
    raw.reserved2 = bit;
    EXPECT_EQ(RejectReason(raw.Encode()), "reserved header bits set") << bit;
    if (bit <= 0xFFFF) {
      RawHeader raw16;
      raw16.reserved = static_cast<std::uint16_t>(bit);
      EXPECT_EQ(RejectReason(raw16.Encode()), "reserved header bits set") << bit;
    }
  }
}

TEST(ResumeJournalTest, BlockSizeOutOfRangeIsRejected) {
  for (std::uint32_t block : {0u, kMaxJournalBlock + 1, 0xFFFFFFFFu}) {
    RawHeader raw;
    raw.block_size = block;
    EXPECT_EQ(RejectReason(raw.Encode()), "journal block size out of range") << block;
  }
  for (std::uint32_t block : {1u, 4096u, kMaxJournalBlock}) {
    RawHeader raw;
    raw.block_size = block;
    std::optional<DecodedJournal> d = Decode(raw.Encode());
    ASSERT_TRUE(d.has_value()) << block;
    EXPECT_EQ(d->header.block_size, block);
  }
}

TEST(ResumeJournalTest, HeaderChecksumMismatchIsRejected) {
  Bytes h = EncodeJournalHeader(SampleHeader());
  h[kH - 1] ^= 1;
  EXPECT_EQ(RejectReason(h), "journal header checksum mismatch");
  h = EncodeJournalHeader(SampleHeader());
  h[20] ^= 1;  // inside the size: the check value no longer matches
  EXPECT_EQ(RejectReason(h), "journal header checksum mismatch");
}

TEST(ResumeJournalTest, ShortInputIsRejected) {
  EXPECT_EQ(RejectReason({}), "shorter than a journal header");
  EXPECT_EQ(RejectReason(Prefix(EncodeJournalHeader(SampleHeader()), kH - 1)),
            "shorter than a journal header");
}

/// A journal of: a good record, then `bad` (a record with a valid check value),
/// then another good record. Returns how many records decode.
std::size_t RecordsAround(const RawHeader& raw, const Bytes& bad) {
  Bytes h = raw.Encode();
  Bytes b = Concat(h, RawRecord(h, 0, 10, 0, 1));
  b = Concat(b, bad);
  b = Concat(b, RawRecord(h, 10, 10, 0, 2));
  std::optional<DecodedJournal> d = Decode(b);
  if (!d.has_value()) {
    ADD_FAILURE() << "header rejected";
    return 0;
  }
  if (d->records.size() == 1) {
    EXPECT_EQ(d->valid_bytes, kH + kR);
    EXPECT_TRUE(d->torn);
  } else {
    EXPECT_EQ(d->valid_bytes, b.size());
    EXPECT_FALSE(d->torn);
  }
  return d->records.size();
}

TEST(ResumeJournalTest, RecordOutOfBoundsEndsTheJournal) {
  RawHeader raw;
  raw.size = 1000;
  Bytes h = raw.Encode();
  // Just inside: a block ending exactly at the size, and one byte at the end.
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 990, 10, 0, 3)), 3u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 999, 1, 0, 3)), 3u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 0, 1000, 0, 3)), 3u);
  // Past the end, by a byte or by far, and offsets that would overflow.
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 990, 11, 0, 3)), 1u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 1000, 1, 0, 3)), 1u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 0, 1001, 0, 3)), 1u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, kU64Max, 1, 0, 3)), 1u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, kU64Max - 5, 10, 0, 3)), 1u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 1001, 0xFFFFFFFFu, 0, 3)), 1u);
}

TEST(ResumeJournalTest, EmptyRecordEndsTheJournal) {
  RawHeader raw;
  raw.size = 1000;
  Bytes h = raw.Encode();
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 0, 0, 0, 3)), 1u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 1000, 0, 0, 3)), 1u);
}

TEST(ResumeJournalTest, RecordLongerThanAnyBlockEndsTheJournal) {
  RawHeader raw;
  raw.size = kU64Max;
  Bytes h = raw.Encode();
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 0, kMaxJournalBlock, 0, 3)), 3u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 0, kMaxJournalBlock + 1, 0, 3)), 1u);
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 0, 0xFFFFFFFFu, 0, 3)), 1u);
}

TEST(ResumeJournalTest, ReservedRecordBitsEndTheJournal) {
  RawHeader raw;
  raw.size = 1000;
  Bytes h = raw.Encode();
  // Bit 0 is the unsynced flag; every other bit is reserved.
  EXPECT_EQ(RecordsAround(raw, RawRecord(h, 20, 10, 1, 3)), 3u);
  for (std::uint32_t bit = 2; bit != 0; bit <<= 1) {
    EXPECT_EQ(RecordsAround(raw, RawRecord(h, 20, 10, bit, 3)), 1u) << bit;
    EXPECT_EQ(RecordsAround(raw, RawRecord(h, 20, 10, bit | 1, 3)), 1u) << bit;
  }
}

TEST(ResumeJournalTest, EmptySourceHasNoValidRecords) {
  RawHeader raw;
  raw.size = 0;
  Bytes h = raw.Encode();
  Bytes b = Concat(h, RawRecord(h, 0, 1, 0, 3));
  std::optional<DecodedJournal> d = Decode(b);
  ASSERT_TRUE(d.has_value());
  EXPECT_TRUE(d->records.empty());
  EXPECT_TRUE(d->torn);
  EXPECT_EQ(d->valid_bytes, kH);
}

/// Random inputs: never a crash, and whatever decodes is consistent with the
/// bytes it came from and stays inside the file it describes.
TEST(ResumeJournalTest, RandomInputNeverYieldsARecordOutsideTheFile) {
  std::mt19937_64 rng(0xB4A1D);
  std::uniform_int_distribution<int> byte(0, 255);
  const JournalHeader header = SampleHeader();
  const Bytes seed = Journal(header, SampleRecords());
  RawHeader small;
  small.size = 3 * 4096 + 7;
  small.block_size = 4096;
  const Bytes small_header = small.Encode();

  int decoded = 0;
  int with_records = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    Bytes input;
    switch (iter % 4) {
      case 0: {  // noise
        std::size_t n = std::uniform_int_distribution<std::size_t>(0, 200)(rng);
        for (std::size_t i = 0; i < n; ++i) input.push_back(static_cast<std::uint8_t>(byte(rng)));
        break;
      }
      case 1: {  // a valid journal with a few bytes changed, then cut or extended
        input = seed;
        int flips = std::uniform_int_distribution<int>(0, 3)(rng);
        for (int i = 0; i < flips; ++i) {
          std::size_t at = std::uniform_int_distribution<std::size_t>(0, input.size() - 1)(rng);
          input[at] = static_cast<std::uint8_t>(byte(rng));
        }
        std::size_t keep = std::uniform_int_distribution<std::size_t>(0, input.size() + 40)(rng);
        if (keep < input.size()) input.resize(keep);
        while (input.size() < keep) input.push_back(static_cast<std::uint8_t>(byte(rng)));
        break;
      }
      case 2: {  // a valid header over a small file, then noise shaped like records
        input = small_header;
        std::size_t n = std::uniform_int_distribution<std::size_t>(0, 6)(rng);
        for (std::size_t i = 0; i < n; ++i) {
          std::uint64_t offset = std::uniform_int_distribution<std::uint64_t>(0, 5 * 4096)(rng);
          auto length = static_cast<std::uint32_t>(
              std::uniform_int_distribution<std::uint64_t>(0, 2 * 4096)(rng));
          if (rng() % 8 == 0) offset = rng();
          if (rng() % 8 == 0) length = static_cast<std::uint32_t>(rng());
          input = Concat(input,
                         RawRecord(small_header, offset, length, rng() % 16 == 0 ? 1 : 0, rng()));
        }
        if (rng() % 4 == 0 && !input.empty()) {
          input[std::uniform_int_distribution<std::size_t>(0, input.size() - 1)(rng)] ^= 0x10;
        }
        break;
      }
      default: {  // a valid header, then raw noise
        input = small_header;
        std::size_t n = std::uniform_int_distribution<std::size_t>(0, 100)(rng);
        for (std::size_t i = 0; i < n; ++i) input.push_back(static_cast<std::uint8_t>(byte(rng)));
        break;
      }
    }
    std::optional<DecodedJournal> d = Decode(input);
    if (!d.has_value()) continue;
    ++decoded;
    if (!d->records.empty()) ++with_records;
    const std::uint64_t size = d->header.source.size;
    ASSERT_GT(d->header.block_size, 0u) << "iteration " << iter;
    ASSERT_LE(d->header.block_size, kMaxJournalBlock) << "iteration " << iter;
    for (const JournalRecord& r : d->records) {
      ASSERT_GT(r.length, 0u) << "iteration " << iter;
      ASSERT_LE(r.offset, size) << "iteration " << iter;
      ASSERT_LE(r.length, size - r.offset) << "iteration " << iter;
    }
    ASSERT_EQ(d->valid_bytes, kH + d->records.size() * kR) << "iteration " << iter;
    ASSERT_LE(d->valid_bytes, input.size()) << "iteration " << iter;
    ASSERT_EQ(d->torn, d->valid_bytes != input.size()) << "iteration " << iter;
    // What decoded is exactly what the valid bytes encode.
    ASSERT_EQ(Journal(d->header, d->records), Prefix(input, d->valid_bytes))
        << "iteration " << iter;
  }
  // The structured half must reach the record checks, or the loop tested little.
  EXPECT_GT(decoded, 5000);
  EXPECT_GT(with_records, 1000);
}

}  // namespace
}  // namespace braid
