#include "resume/resume_journal.h"

#include <array>

#include "braid/wire.h"
#include "security/crypto/payload_checksum.h"

namespace braid {
namespace {

constexpr std::array<std::uint8_t, 8> kJournalMagic = {'B', 'R', 'A', 'I', 'D', 'J', 'N', 'L'};
constexpr std::uint16_t kJournalVersion = 1;
/// Bytes of the header that its check value covers.
constexpr std::size_t kHeaderBody = kJournalHeaderSize - 8;
constexpr std::size_t kRecordBody = kJournalRecordSize - 8;
/// The record's flags word: the one flag a version-1 journal knows.
constexpr std::uint32_t kRecordUnsynced = 1;

std::uint64_t HeaderCheck(std::span<const std::uint8_t> header) {
  return PayloadChecksum(header.first(kHeaderBody));
}

std::uint64_t RecordCheck(std::uint64_t header_check, std::span<const std::uint8_t> record) {
  return PayloadChecksum(record.first(kRecordBody)) ^ header_check;
}

}  // namespace

std::vector<std::uint8_t> EncodeJournalHeader(const JournalHeader& header) {
  WireWriter w;
  w.Bytes(kJournalMagic);
  w.U16(kJournalVersion);
  w.U16(0);
  w.U32(header.block_size);
  w.U64(header.source.size);
  w.U64(static_cast<std::uint64_t>(header.source.mtime_sec));
  w.U32(header.source.mtime_nsec);
  w.U32(0);
  w.U64(header.source.fingerprint);
  w.U64(HeaderCheck(w.data()));
  return w.Take();
}

std::vector<std::uint8_t> EncodeJournalRecords(const JournalHeader& header,
                                               std::span<const JournalRecord> records) {
  std::uint64_t header_check = HeaderCheck(EncodeJournalHeader(header));
  WireWriter w;
  for (const JournalRecord& r : records) {
    std::size_t start = w.data().size();
    w.U64(r.offset);
    w.U32(r.length);
    w.U32(r.synced ? 0 : kRecordUnsynced);
    w.U64(r.checksum);
    w.U64(RecordCheck(header_check, std::span(w.data()).subspan(start)));
  }
  return w.Take();
}

std::optional<DecodedJournal> DecodeJournal(std::span<const std::uint8_t> bytes, std::string* why) {
  auto reject = [why](const char* reason) -> std::optional<DecodedJournal> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  if (bytes.size() < kJournalHeaderSize) return reject("shorter than a journal header");
  std::span<const std::uint8_t> head = bytes.first(kJournalHeaderSize);
  WireReader r(head);
  auto magic = r.Bytes(kJournalMagic.size());
  if (!std::equal(magic.begin(), magic.end(), kJournalMagic.begin())) {
    return reject("not a braid journal");
  }
  if (r.U16() != kJournalVersion) return reject("journal version not supported");
  if (r.U16() != 0) return reject("reserved header bits set");
  DecodedJournal out;
  out.header.block_size = r.U32();
  out.header.source.size = r.U64();
  out.header.source.mtime_sec = static_cast<std::int64_t>(r.U64());
  out.header.source.mtime_nsec = r.U32();
  if (r.U32() != 0) return reject("reserved header bits set");
  out.header.source.fingerprint = r.U64();
  std::uint64_t header_check = r.U64();
  if (header_check != HeaderCheck(head)) return reject("journal header checksum mismatch");
  if (out.header.block_size == 0 || out.header.block_size > kMaxJournalBlock) {
    return reject("journal block size out of range");
  }

  std::size_t pos = kJournalHeaderSize;
  while (bytes.size() - pos >= kJournalRecordSize) {
    std::span<const std::uint8_t> unit = bytes.subspan(pos, kJournalRecordSize);
    WireReader rr(unit);
    JournalRecord rec;
    rec.offset = rr.U64();
    rec.length = rr.U32();
    std::uint32_t flags = rr.U32();
    rec.synced = (flags & kRecordUnsynced) == 0;
    rec.checksum = rr.U64();
    std::uint64_t check = rr.U64();
    // A record that fails any check ends the journal: it is the torn tail of
    // an append, and nothing after it can be trusted to be in order.
    bool in_bounds = rec.length > 0 && rec.length <= kMaxJournalBlock &&
                     rec.offset <= out.header.source.size &&
                     rec.length <= out.header.source.size - rec.offset;
    bool known_flags = (flags & ~kRecordUnsynced) == 0;
    if (check != RecordCheck(header_check, unit) || !known_flags || !in_bounds) break;
    out.records.push_back(rec);
    pos += kJournalRecordSize;
  }
  out.valid_bytes = pos;
  out.torn = pos != bytes.size();
  return out;
}

}  // namespace braid
