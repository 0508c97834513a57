#include "transport/data_frame.h"

#include <limits>

#include "braid/wire.h"

namespace braid {
namespace {

/// A same-block or hole frame: a range of 1..max_payload bytes, no payload.
void CheckPayloadless(const FrameHeader& h, std::uint32_t max_payload, const char* malformed) {
  if (h.flags != 0 || h.length != 0 || h.raw_length == 0 || h.raw_length > max_payload ||
      h.offset > std::numeric_limits<std::uint64_t>::max() - h.raw_length) {
    WireReader::Fail(malformed);
  }
}

}  // namespace

FrameHeaderBytes EncodeFrameHeader(const FrameHeader& h) {
  WireWriter w;
  w.U32(kFrameMagic);
  w.U8(static_cast<std::uint8_t>(h.type));
  w.U8(h.flags);
  w.U16(0);
  w.U32(h.file_id);
  w.U32(h.length);
  w.U64(h.offset);
  w.U32(h.raw_length);
  w.U32(0);
  w.U64(h.checksum);
  FrameHeaderBytes out{};
  std::copy(w.data().begin(), w.data().end(), out.begin());
  return out;
}

FrameHeader DecodeFrameHeader(std::span<const std::uint8_t> bytes, std::uint32_t max_payload) {
  WireReader r(bytes);
  if (r.U32() != kFrameMagic) WireReader::Fail("data frame has a bad magic number");
  FrameHeader h;
  std::uint8_t type = r.U8();
  h.flags = r.U8();
  std::uint16_t reserved = r.U16();
  h.file_id = r.U32();
  h.length = r.U32();
  h.offset = r.U64();
  h.raw_length = r.U32();
  std::uint32_t reserved2 = r.U32();
  h.checksum = r.U64();
  r.ExpectEnd();
  if (reserved != 0 || reserved2 != 0 || (h.flags & ~kKnownFlags) != 0) {
    WireReader::Fail("data frame has unknown flags");
  }
  switch (type) {
    case static_cast<std::uint8_t>(FrameType::kData):
      h.type = FrameType::kData;
      if (h.length == 0 || h.length > max_payload || h.raw_length == 0 ||
          h.raw_length > max_payload) {
        WireReader::Fail("data frame length out of range");
      }
      if ((h.flags & kFlagHasDigest) != 0) WireReader::Fail("data frame flagged with a digest");
      if ((h.flags & kFlagCompressed) == 0 && h.raw_length != h.length) {
        WireReader::Fail("uncompressed data frame with two lengths");
      }
      if (h.offset > std::numeric_limits<std::uint64_t>::max() - h.raw_length) {
        WireReader::Fail("data frame offset overflows");
      }
      break;
    case static_cast<std::uint8_t>(FrameType::kFileEnd):
      h.type = FrameType::kFileEnd;
      if ((h.flags & kFlagCompressed) != 0 || h.raw_length != 0 ||
          ((h.flags & kFlagHasDigest) != 0 ? h.length == 0 || h.length > kMaxDigestSize
                                           : h.length != 0)) {
        WireReader::Fail("file-end frame malformed");
      }
      break;
    case static_cast<std::uint8_t>(FrameType::kPassEnd):
      h.type = FrameType::kPassEnd;
      // raw_length: the streams the source still has, at most those it had (0: all).
      if (h.flags != 0 || h.length != 0 || h.raw_length > h.file_id || h.offset != 0 ||
          h.file_id == 0 || h.file_id > static_cast<std::uint32_t>(kMaxStreams)) {
        WireReader::Fail("pass-end frame malformed");
      }
      break;
    case static_cast<std::uint8_t>(FrameType::kResend):
      h.type = FrameType::kResend;
      if (h.flags != 0 || h.raw_length != 0 || h.file_id != 0 || h.length == 0 ||
          h.length > max_payload || h.length % kResendRangeSize != 0) {
        WireReader::Fail("resend frame malformed");
      }
      break;
    case static_cast<std::uint8_t>(FrameType::kSame):
      h.type = FrameType::kSame;
      CheckPayloadless(h, max_payload, "same-block frame malformed");
      break;
    case static_cast<std::uint8_t>(FrameType::kHole):
      h.type = FrameType::kHole;
      CheckPayloadless(h, max_payload, "hole frame malformed");
      break;
    default:
      WireReader::Fail("unknown data frame type " + std::to_string(type));
  }
  return h;
}

std::vector<std::uint8_t> EncodeResendList(std::span<const ResendRange> ranges) {
  WireWriter w;
  for (const ResendRange& r : ranges) {
    w.U32(r.file_id);
    w.U64(r.offset);
    w.U64(r.length);
  }
  return w.Take();
}

std::vector<ResendRange> DecodeResendList(std::span<const std::uint8_t> payload) {
  if (payload.size() % kResendRangeSize != 0) WireReader::Fail("resend list truncated");
  WireReader r(payload);
  std::vector<ResendRange> out;
  out.reserve(payload.size() / kResendRangeSize);
  while (!r.AtEnd()) {
    ResendRange range;
    range.file_id = r.U32();
    range.offset = r.U64();
    range.length = r.U64();
    if (range.offset > std::numeric_limits<std::uint64_t>::max() - range.length) {
      WireReader::Fail("resend range overflows");
    }
    out.push_back(range);
  }
  return out;
}

}  // namespace braid
