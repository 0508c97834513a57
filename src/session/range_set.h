#pragma once
/// A set of byte ranges [begin, end) kept merged: which parts of a file have
/// arrived. Pure; used to count unique bytes and to find the contiguous prefix.

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace braid {

class RangeSet {
 public:
  /// Adds [begin, end); overlapping or adjacent ranges merge. Returns the
  /// number of bytes that were not already present.
  std::uint64_t Add(std::uint64_t begin, std::uint64_t end);
  /// Bytes covered in all.
  std::uint64_t covered() const { return covered_; }
  /// End of the range that starts at 0 (0 if none does).
  std::uint64_t ContiguousPrefix() const;
  /// Largest end of any range (0 if empty).
  std::uint64_t MaxEnd() const;
  bool Contains(std::uint64_t begin, std::uint64_t end) const;
  std::size_t pieces() const { return ranges_.size(); }
  /// The ranges, in order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> Ranges() const;
  /// What is not covered of [0, end), in order.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> Gaps(std::uint64_t end) const;

 private:
  std::map<std::uint64_t, std::uint64_t> ranges_;  // begin -> end
  std::uint64_t covered_ = 0;
};

}  // namespace braid
