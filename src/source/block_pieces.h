#pragma once
/// Where a block of a file holds data and where it holds a hole, so that a
/// hole (a range the file system keeps no blocks for, or with --sparse a run
/// of zeros) crosses the network as a hole frame, not as its zeros. Pure.

#include <cstdint>
#include <span>
#include <vector>

namespace braid {

/// A file range [begin, end).
struct FileRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  bool operator==(const FileRange&) const = default;
};

/// Part of a block, in offsets from the block's start.
struct BlockPiece {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  bool hole = false;
  bool operator==(const BlockPiece&) const = default;
};

/// Runs of zeros shorter than this stay data: a hole frame costs as much as
/// a small run, and a file system keeps holes in whole blocks anyway.
constexpr std::uint32_t kZeroRunUnit = 4096;

/// Splits the block [offset, offset + length) into data and holes, in order,
/// adjacent pieces of one kind merged. `holes`: file ranges known to be holes
/// (sorted, not overlapping; they may reach past the block). `data`: the
/// block's bytes, when read, else empty; with `zero_runs` every
/// kZeroRunUnit-aligned (in file offsets) unit of zeros in it is a hole too.
std::vector<BlockPiece> SplitBlock(std::uint64_t offset, std::uint32_t length,
                                   std::span<const FileRange> holes,
                                   std::span<const std::uint8_t> data, bool zero_runs);

}  // namespace braid
