// SplitBlock: where a block of a file is data and where a hole, from the
// file's holes and (with --sparse) its runs of zeros.

#include "source/block_pieces.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace braid {
namespace {

constexpr std::uint32_t kUnit = kZeroRunUnit;

TEST(BlockPiecesTest, NoHolesIsOneDataPiece) {
  EXPECT_EQ(SplitBlock(0, 1 << 20, {}, {}, false), (std::vector<BlockPiece>{{0, 1 << 20, false}}));
}

TEST(BlockPiecesTest, FileHolesCutTheBlockAndMayReachPastIt) {
  // Block [1 MiB, 2 MiB); holes before it, inside it and across its end.
  const std::uint64_t at = 1 << 20;
  std::vector<FileRange> holes = {{0, at + 100}, {at + 4096, at + 8192}, {at + 1000000, 5u << 20}};
  EXPECT_EQ(SplitBlock(at, 1 << 20, holes, {}, false),
            (std::vector<BlockPiece>{{0, 100, true},
                                     {100, 4096, false},
                                     {4096, 8192, true},
                                     {8192, 1000000, false},
                                     {1000000, 1 << 20, true}}));
}

TEST(BlockPiecesTest, AWholeHoleIsOnePiece) {
  std::vector<FileRange> holes = {{0, 10u << 20}};
  EXPECT_EQ(SplitBlock(3u << 20, 1 << 20, holes, {}, false),
            (std::vector<BlockPiece>{{0, 1 << 20, true}}));
}

TEST(BlockPiecesTest, OverlappingHolesNeverGiveAPieceTwice) {
  std::vector<FileRange> holes = {{0, 300}, {200, 500}};
  EXPECT_EQ(SplitBlock(0, 1000, holes, {}, false),
            (std::vector<BlockPiece>{{0, 500, true}, {500, 1000, false}}));
}

TEST(BlockPiecesTest, ZeroRunsBecomeHolesInWholeAlignedUnitsOnly) {
  // A block at file offset 1000 (not aligned): units end at 4096, 8192, ...
  std::vector<std::uint8_t> data(5 * kUnit, 0);
  data[2 * kUnit] = 7;  // file offset 1000 + 8192: in the unit [8192, 12288)
  auto pieces = SplitBlock(1000, 5 * kUnit, {}, data, true);
  // [0, 3096) is cut by the block's start: data. [3096, 7192) is the unit
  // [4096, 8192): a hole. [7192, 11288) holds the 7: data. Then whole zero
  // units [11288, 19480) to a hole, and the cut last piece is data.
  EXPECT_EQ(pieces, (std::vector<BlockPiece>{{0, 3096, false},
                                             {3096, 7192, true},
                                             {7192, 11288, false},
                                             {11288, 19480, true},
                                             {19480, 5 * kUnit, false}}));
}

TEST(BlockPiecesTest, ZeroRunsAreLeftAloneWithoutTheOptionOrTheBytes) {
  std::vector<std::uint8_t> zeros(4 * kUnit, 0);
  EXPECT_EQ(SplitBlock(0, 4 * kUnit, {}, zeros, false),
            (std::vector<BlockPiece>{{0, 4 * kUnit, false}}));
  // Not read (a whole hole): nothing to look at.
  EXPECT_EQ(SplitBlock(0, 4 * kUnit, {}, {}, true),
            (std::vector<BlockPiece>{{0, 4 * kUnit, false}}));
  EXPECT_EQ(SplitBlock(0, 4 * kUnit, {}, zeros, true),
            (std::vector<BlockPiece>{{0, 4 * kUnit, true}}));
}

TEST(BlockPiecesTest, FileHolesAndZeroRunsMerge) {
  std::vector<std::uint8_t> data(4 * kUnit, 0);
  data[3 * kUnit + 5] = 1;
  std::vector<FileRange> holes = {{kUnit, 2 * kUnit}};
  EXPECT_EQ(SplitBlock(0, 4 * kUnit, holes, data, true),
            (std::vector<BlockPiece>{{0, 3 * kUnit, true}, {3 * kUnit, 4 * kUnit, false}}));
}

TEST(BlockPiecesTest, PiecesCoverTheBlockInOrder) {
  // Every combination of a few holes and a pattern of zero units.
  for (std::uint64_t offset : {0ull, 100ull, 4096ull, (1ull << 40) + 17}) {
    for (int pattern = 0; pattern < 16; ++pattern) {
      std::vector<std::uint8_t> data(4 * kUnit + 123, 1);
      for (int u = 0; u < 4; ++u) {
        if ((pattern >> u) & 1) std::fill_n(data.begin() + u * kUnit, kUnit, 0);
      }
      auto length = static_cast<std::uint32_t>(data.size());
      std::vector<FileRange> holes = {{offset + 50, offset + 60},
                                      {offset + 9000, offset + 9000 + 3 * kUnit}};
      auto pieces = SplitBlock(offset, length, holes, data, true);
      ASSERT_FALSE(pieces.empty());
      EXPECT_EQ(pieces.front().begin, 0u);
      EXPECT_EQ(pieces.back().end, length);
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        EXPECT_LT(pieces[i].begin, pieces[i].end);
        if (i > 0) {
          EXPECT_EQ(pieces[i].begin, pieces[i - 1].end);
          EXPECT_NE(pieces[i].hole, pieces[i - 1].hole);
        }
        if (!pieces[i].hole) continue;
        // A hole is a file hole or zeros.
        for (std::uint32_t b = pieces[i].begin; b < pieces[i].end; ++b) {
          std::uint64_t at = offset + b;
          bool in_file_hole = (at >= offset + 50 && at < offset + 60) ||
                              (at >= offset + 9000 && at < offset + 9000 + 3 * kUnit);
          ASSERT_TRUE(in_file_hole || data[b] == 0) << offset << " " << pattern << " " << b;
        }
      }
    }
  }
}

}  // namespace
}  // namespace braid
