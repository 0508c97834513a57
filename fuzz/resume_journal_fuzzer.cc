// The resume journal is read back from the target's disk, where anything may
// have happened to it (a torn append, another program, a hostile user of a
// shared directory). Every record DecodeJournal keeps must describe a block
// inside the announced source, and what it keeps must re-encode to the very
// bytes it read.
//
// Checksums guard every header and record, so raw mutation rarely gets past
// the header. With the first input byte odd, the fuzzer writes the check
// values itself (the layout of docs/protocol.md), which sends it deep into
// the record loop.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fuzz_support.h"
#include "resume/resume_journal.h"
#include "security/crypto/payload_checksum.h"

using namespace braid;

namespace {

void PutU64(std::uint8_t* p, std::uint64_t v) {
  for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<std::uint8_t>(v);
}

/// Overwrites the header's and each whole record's check value with the right one.
void FixChecks(std::vector<std::uint8_t>& j) {
  if (j.size() < kJournalHeaderSize) return;
  const std::uint64_t header_check = PayloadChecksum(std::span(j).first(kJournalHeaderSize - 8));
  PutU64(&j[kJournalHeaderSize - 8], header_check);
  for (std::size_t pos = kJournalHeaderSize; j.size() - pos >= kJournalRecordSize;
       pos += kJournalRecordSize) {
    const std::uint64_t check =
        PayloadChecksum(std::span(j).subspan(pos, kJournalRecordSize - 8)) ^ header_check;
    PutU64(&j[pos + kJournalRecordSize - 8], check);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  std::vector<std::uint8_t> bytes(data + 1, data + size);
  if ((data[0] & 1) != 0) FixChecks(bytes);

  std::string why;
  const std::optional<DecodedJournal> j = DecodeJournal(bytes, &why);
  if (!j) {
    BRAID_FUZZ_CHECK(!why.empty());
    return 0;
  }
  const SourceIdentity& src = j->header.source;
  BRAID_FUZZ_CHECK(j->header.block_size > 0 && j->header.block_size <= kMaxJournalBlock);
  BRAID_FUZZ_CHECK(j->valid_bytes == kJournalHeaderSize + j->records.size() * kJournalRecordSize);
  BRAID_FUZZ_CHECK(j->valid_bytes <= bytes.size());
  BRAID_FUZZ_CHECK(j->torn == (j->valid_bytes != bytes.size()));
  for (const JournalRecord& r : j->records) {
    BRAID_FUZZ_CHECK(r.length > 0 && r.length <= kMaxJournalBlock);
    BRAID_FUZZ_CHECK(r.offset <= src.size && r.length <= src.size - r.offset);
  }

  const std::vector<std::uint8_t> header = EncodeJournalHeader(j->header);
  BRAID_FUZZ_CHECK(std::equal(header.begin(), header.end(), bytes.begin()));
  const std::vector<std::uint8_t> records = EncodeJournalRecords(j->header, j->records);
  BRAID_FUZZ_CHECK(std::equal(records.begin(), records.end(), bytes.begin() + kJournalHeaderSize,
                              bytes.begin() + static_cast<std::ptrdiff_t>(j->valid_bytes)));
  return 0;
}
