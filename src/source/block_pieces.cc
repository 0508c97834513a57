#include "source/block_pieces.h"

#include <algorithm>
#include <cstring>

namespace braid {
namespace {

/// Appends [begin, end) of kind `hole`, merged with the last piece when alike.
void Append(std::vector<BlockPiece>& pieces, std::uint32_t begin, std::uint32_t end, bool hole) {
  if (begin >= end) return;
  if (!pieces.empty() && pieces.back().hole == hole && pieces.back().end == begin) {
    pieces.back().end = end;
    return;
  }
  pieces.push_back({begin, end, hole});
}

bool AllZero(const std::uint8_t* p, std::size_t n) {
  // memcmp against itself shifted by one byte: zero everywhere iff the first
  // byte is zero and every byte equals the next (glibc's memcmp is vectorised).
  return n == 0 || (p[0] == 0 && std::memcmp(p, p + 1, n - 1) == 0);
}

/// Data [begin, end) of the block, split further at its units of zeros.
void AppendData(std::vector<BlockPiece>& pieces, std::uint64_t offset, std::uint32_t begin,
                std::uint32_t end, std::span<const std::uint8_t> data, bool zero_runs) {
  if (!zero_runs || data.size() < end) {
    Append(pieces, begin, end, false);
    return;
  }
  std::uint32_t at = begin;
  while (at < end) {
    // The unit holding `at` ends at the next multiple of kZeroRunUnit in file offsets.
    std::uint64_t file_at = offset + at;
    std::uint64_t unit_end = (file_at / kZeroRunUnit + 1) * kZeroRunUnit;
    auto next = static_cast<std::uint32_t>(std::min<std::uint64_t>(unit_end - offset, end));
    // Only a whole unit becomes a hole; a unit cut by the block's or the data's edge stays data.
    bool whole = file_at % kZeroRunUnit == 0 && next - at == kZeroRunUnit;
    Append(pieces, at, next, whole && AllZero(data.data() + at, next - at));
    at = next;
  }
}

}  // namespace

std::vector<BlockPiece> SplitBlock(std::uint64_t offset, std::uint32_t length,
                                   std::span<const FileRange> holes,
                                   std::span<const std::uint8_t> data, bool zero_runs) {
  std::vector<BlockPiece> pieces;
  const std::uint64_t end = offset + length;
  std::uint32_t at = 0;
  for (const FileRange& h : holes) {
    if (h.end <= offset + at || h.begin >= end) continue;
    auto hole_begin = static_cast<std::uint32_t>(std::max(h.begin, offset) - offset);
    auto hole_end = static_cast<std::uint32_t>(std::min(h.end, end) - offset);
    if (hole_begin < at) hole_begin = at;  // overlapping input: never a piece twice
    AppendData(pieces, offset, at, hole_begin, data, zero_runs);
    Append(pieces, hole_begin, hole_end, true);
    at = std::max(at, hole_end);
  }
  AppendData(pieces, offset, at, length, data, zero_runs);
  return pieces;
}

}  // namespace braid
