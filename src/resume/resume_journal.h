#pragma once
/// The resume journal kept beside a partial file: which source it belongs to,
/// and which blocks of the partial file are durable, each with its checksum.
/// Pure codec. The journal is append-only; every record carries its own check
/// value, so a crash that tears the last append costs only that append: the
/// decoder keeps every record before the first bad one. docs/resume.md.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace braid {

/// What identifies the source a partial file was copied from. A different
/// file of the same size and time still differs in `fingerprint`.
struct SourceIdentity {
  std::uint64_t size = 0;
  std::int64_t mtime_sec = 0;
  std::uint32_t mtime_nsec = 0;
  std::uint64_t fingerprint = 0;
  bool operator==(const SourceIdentity&) const = default;
};

/// One block: `length` bytes at `offset` whose XXH3-64 is `checksum`.
/// `synced`: appended after the block's fdatasync, so it survives a power cut.
/// An unsynced record is appended as soon as the block is written: it survives
/// the sink being killed (the page cache keeps the data), and a re-run trusts
/// it only after reading the block back.
struct JournalRecord {
  std::uint64_t offset = 0;
  std::uint32_t length = 0;
  std::uint64_t checksum = 0;
  bool synced = true;
  bool operator==(const JournalRecord&) const = default;
};

constexpr std::size_t kJournalHeaderSize = 56;
constexpr std::size_t kJournalRecordSize = 32;
/// Journals are only for blocks a copier could send; anything larger is corrupt.
constexpr std::uint32_t kMaxJournalBlock = 64u << 20;

struct JournalHeader {
  SourceIdentity source;
  std::uint32_t block_size = 0;
};

struct DecodedJournal {
  JournalHeader header;
  std::vector<JournalRecord> records;
  /// Bytes of header and intact records; anything after them is a torn append.
  std::size_t valid_bytes = 0;
  bool torn = false;
};

std::vector<std::uint8_t> EncodeJournalHeader(const JournalHeader& header);
/// Records to append to the journal that starts with `header`; each record's
/// check value is tied to that header, so records never validate elsewhere.
std::vector<std::uint8_t> EncodeJournalRecords(const JournalHeader& header,
                                               std::span<const JournalRecord> records);

/// Decodes a whole journal file. nullopt (and `why`) when the header is not a
/// valid braid journal; otherwise the records up to the first bad or partial one.
std::optional<DecodedJournal> DecodeJournal(std::span<const std::uint8_t> bytes,
                                            std::string* why = nullptr);

}  // namespace braid
