#include "transport/block_codec.h"

#include <zlib.h>

#include "braid/error.h"

namespace braid {

BlockCompressor::BlockCompressor(int level, std::size_t max_block)
    : level_(level), scratch_(compressBound(static_cast<uLong>(max_block))) {}

EncodedBlock BlockCompressor::Encode(std::span<const std::uint8_t> raw) {
  uLongf size = static_cast<uLongf>(scratch_.size());
  int rc = compress2(scratch_.data(), &size, raw.data(), static_cast<uLong>(raw.size()), level_);
  if (rc != Z_OK || size >= raw.size()) return {raw, false};
  return {std::span<const std::uint8_t>(scratch_.data(), size), true};
}

void InflateBlock(std::span<const std::uint8_t> payload, std::span<std::uint8_t> out) {
  uLongf size = static_cast<uLongf>(out.size());
  int rc = uncompress(out.data(), &size, payload.data(), static_cast<uLong>(payload.size()));
  if (rc != Z_OK || size != out.size()) {
    throw BraidError(ErrorCode::kProtocol,
                     "protocol error: a compressed block does not inflate to its stated length");
  }
}

}  // namespace braid
