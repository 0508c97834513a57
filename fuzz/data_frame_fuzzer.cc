// Data-stream frames arrive from the network before anything is checked:
// DecodeFrameHeader sees every 40-byte header, DecodeResendList every resend
// payload (sink -> source). Input: u32 max_payload, 40 header bytes, payload.

#include <algorithm>
#include <cstdint>
#include <limits>

#include "fuzz_support.h"
#include "transport/data_frame.h"

using namespace braid;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  // Block sizes the protocol allows (4 KiB..64 MiB) plus the odd ones around them.
  const std::uint32_t max_payload = (std::uint32_t{data[0]} << 24 | std::uint32_t{data[1]} << 16 |
                                     std::uint32_t{data[2]} << 8 | data[3]);
  auto rest = fuzz::Bytes(data + 4, size - 4);
  auto header = rest.first(std::min(rest.size(), kFrameHeaderSize));
  auto payload = rest.subspan(header.size());

  FrameHeader h;
  if (fuzz::Accepts(ErrorCode::kProtocol, [&] { h = DecodeFrameHeader(header, max_payload); })) {
    // Only a whole header can decode, and it is exactly what the encoder writes.
    BRAID_FUZZ_CHECK(header.size() == kFrameHeaderSize);
    const FrameHeaderBytes again = EncodeFrameHeader(h);
    BRAID_FUZZ_CHECK(std::equal(again.begin(), again.end(), header.begin()));
    if (h.type == FrameType::kData) {
      BRAID_FUZZ_CHECK(h.length > 0 && h.length <= max_payload);
      BRAID_FUZZ_CHECK(h.raw_length > 0 && h.raw_length <= max_payload);
      BRAID_FUZZ_CHECK(h.offset <= std::numeric_limits<std::uint64_t>::max() - h.raw_length);
    }
    if (h.type == FrameType::kPassEnd) {
      BRAID_FUZZ_CHECK(h.file_id >= 1 && h.file_id <= static_cast<std::uint32_t>(kMaxStreams));
    }
    if (h.type == FrameType::kFileEnd) {
      // A digest of 1..kMaxDigestSize bytes exactly when flagged (sha256's is 32).
      const bool flagged = (h.flags & kFlagHasDigest) != 0;
      BRAID_FUZZ_CHECK(flagged ? h.length >= 1 && h.length <= kMaxDigestSize : h.length == 0);
    }
    if (h.type == FrameType::kResend) {
      BRAID_FUZZ_CHECK(h.length <= max_payload && h.length % kResendRangeSize == 0);
    }
  }

  std::vector<ResendRange> ranges;
  if (fuzz::Accepts(ErrorCode::kProtocol, [&] { ranges = DecodeResendList(payload); })) {
    BRAID_FUZZ_CHECK(ranges.size() * kResendRangeSize == payload.size());
    for (const ResendRange& r : ranges) {
      BRAID_FUZZ_CHECK(r.offset <= std::numeric_limits<std::uint64_t>::max() - r.length);
    }
    const std::vector<std::uint8_t> again = EncodeResendList(ranges);
    BRAID_FUZZ_CHECK(std::equal(again.begin(), again.end(), payload.begin(), payload.end()));
  }
  return 0;
}
