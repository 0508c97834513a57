#pragma once
/// Per-block zlib compression for -c. A block is sent compressed only when
/// that makes it smaller, so incompressible data costs one failed attempt,
/// never extra bytes on the wire.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace braid {

/// The zlib braid runs with ("1.2.13"), for `braid --version`.
std::string ZlibVersion();

struct EncodedBlock {
  std::span<const std::uint8_t> payload;  ///< what to send
  bool compressed = false;
};

class BlockCompressor {
 public:
  /// `level` is zlib's 1..9; `max_block` the largest block it will see.
  BlockCompressor(int level, std::size_t max_block);
  /// The compressed block if smaller than `raw`, else `raw` itself. The span
  /// stays valid until the next call.
  EncodedBlock Encode(std::span<const std::uint8_t> raw);

 private:
  int level_;
  std::vector<std::uint8_t> scratch_;
};

/// Inflates `payload`, bytes from the peer, into exactly `out.size()` bytes.
/// Throws BraidError(kProtocol), naming the cause, unless it is one whole
/// zlib stream of exactly that length with nothing after it: empty, corrupt
/// or cut short, inflating to more (never written past `out`) or to fewer, or
/// an empty `out`.
void InflateBlock(std::span<const std::uint8_t> payload, std::span<std::uint8_t> out);

}  // namespace braid
