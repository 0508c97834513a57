// A data frame flagged compressed (-c) carries zlib bytes from the peer that
// InflateBlock expands into the block buffer of the frame's raw_length.
// Input: u32 out size (taken modulo 1 MiB + 1), u8 zlib level, payload.
// The payload is inflated as it is, and also compressed and inflated back.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fuzz_support.h"
#include "transport/block_codec.h"

using namespace braid;

namespace {

constexpr std::size_t kMaxOut = 1u << 20;

bool Inflates(std::span<const std::uint8_t> payload, std::size_t out_size) {
  std::vector<std::uint8_t> out(out_size);
  return fuzz::Accepts(ErrorCode::kProtocol, [&] { InflateBlock(payload, out); });
}

/// Peer bytes: accepted only at exactly one length, the one they inflate to,
/// and only whole: no byte after the stream's end, none missing.
void InflateAsSent(std::span<const std::uint8_t> payload, std::size_t out_size) {
  if (!Inflates(payload, out_size)) return;
  BRAID_FUZZ_CHECK(!payload.empty() && out_size > 0);
  BRAID_FUZZ_CHECK(!Inflates(payload, out_size - 1));  // more than out: rejected
  BRAID_FUZZ_CHECK(!Inflates(payload, out_size + 1));  // fewer than out: rejected
  BRAID_FUZZ_CHECK(!Inflates(payload.first(payload.size() - 1), out_size));
}

/// Our own encoder's output always inflates back to the block, at its length only.
void RoundTrip(std::span<const std::uint8_t> raw, int level) {
  BlockCompressor compressor(level, raw.size());
  const EncodedBlock block = compressor.Encode(raw);
  if (!block.compressed) {
    BRAID_FUZZ_CHECK(block.payload.data() == raw.data() && block.payload.size() == raw.size());
    return;
  }
  BRAID_FUZZ_CHECK(!block.payload.empty() && block.payload.size() < raw.size());
  std::vector<std::uint8_t> back(raw.size());
  InflateBlock(block.payload, back);  // any exception escapes: a finding
  BRAID_FUZZ_CHECK(std::equal(back.begin(), back.end(), raw.begin()));
  BRAID_FUZZ_CHECK(!Inflates(block.payload, raw.size() - 1));
  BRAID_FUZZ_CHECK(!Inflates(block.payload, raw.size() + 1));
  BRAID_FUZZ_CHECK(!Inflates(block.payload.first(block.payload.size() - 1), raw.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 5) return 0;
  const std::uint32_t wanted = (std::uint32_t{data[0]} << 24 | std::uint32_t{data[1]} << 16 |
                                std::uint32_t{data[2]} << 8 | data[3]);
  const std::size_t out_size = wanted % (kMaxOut + 1);
  const int level = data[4] % 9 + 1;  // -c takes 1..9
  const auto payload = fuzz::Bytes(data + 5, size - 5);
  InflateAsSent(payload, out_size);
  if (!payload.empty()) RoundTrip(payload, level);
  return 0;
}
