#pragma once
/// The self-describing frame every data stream carries. A block can travel on
/// any stream and arrive in any order because its header says where it goes.
/// Pure codec: docs/protocol.md has the layout.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "braid/hash_algorithm.h"
#include "braid/limits.h"

namespace braid {

constexpr std::uint32_t kFrameMagic = 0x42524446;  // "BRDF"
constexpr std::size_t kFrameHeaderSize = 40;

enum class FrameType : std::uint8_t {
  kData = 1,     ///< payload is file bytes at `offset`
  kFileEnd = 2,  ///< file `file_id` ends at `offset`; payload is its digest if flagged
  /// source -> sink: everything of this pass is sent; file_id is how many streams
  /// the source has. The sink answers with kResend or by closing the stream.
  kPassEnd = 3,
  /// sink -> source: send these ranges again (lost with a dead stream); offset
  /// is the pass number, the payload a list of ResendRange.
  kResend = 4,
  /// source -> sink: the block [offset, offset + raw_length) of a file the
  /// sink compared (resume list tag 2) hashes as the target's does: keep it.
  /// No payload.
  kSame = 5,
  /// source -> sink: [offset, offset + raw_length) of a regular file is a hole
  /// (zeros that need no space): counted as received, nothing written. No payload.
  kHole = 6,
};

constexpr std::uint8_t kFlagCompressed = 0x01;
/// A file end that carries the file's end-to-end digest (-E) as its payload.
constexpr std::uint8_t kFlagHasDigest = 0x02;
constexpr std::uint8_t kKnownFlags = kFlagCompressed | kFlagHasDigest;

struct FrameHeader {
  FrameType type = FrameType::kData;
  std::uint8_t flags = 0;
  std::uint32_t file_id = 0;
  std::uint32_t length = 0;      ///< payload bytes that follow on the wire
  std::uint64_t offset = 0;      ///< data: file offset; file end: final size
  std::uint32_t raw_length = 0;  ///< data bytes after decompression
  std::uint64_t checksum = 0;    ///< XXH3-64 of the payload as sent
};

/// One range the sink asks for again; length 0 asks for the file's end frame.
struct ResendRange {
  std::uint32_t file_id = 0;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool operator==(const ResendRange&) const = default;
};
constexpr std::size_t kResendRangeSize = 20;

std::vector<std::uint8_t> EncodeResendList(std::span<const ResendRange> ranges);
/// Throws BraidError(kProtocol) unless `payload` is a whole number of ranges.
std::vector<ResendRange> DecodeResendList(std::span<const std::uint8_t> payload);

using FrameHeaderBytes = std::array<std::uint8_t, kFrameHeaderSize>;

FrameHeaderBytes EncodeFrameHeader(const FrameHeader& h);

/// Decodes and validates a header: magic, type, flags, reserved bits, lengths
/// against `max_payload` (a file end's digest: 1..kMaxDigestSize bytes when
/// flagged, the receiver checks it is its algorithm's), offset overflow.
/// Throws BraidError(kProtocol).
FrameHeader DecodeFrameHeader(std::span<const std::uint8_t> bytes, std::uint32_t max_payload);

}  // namespace braid
