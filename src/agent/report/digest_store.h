#pragma once
/// The end-to-end digests -e / -E print once a copy ends, kept packed: per
/// file its algorithm, the digest's bytes and the path as the sink named it,
/// in blocks of 1 MiB. About 22 bytes and the path a file, where a FileDone
/// kept whole cost about 250 (25 MiB for 100,000 files). Pure: no IO.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "braid/hash_algorithm.h"

namespace braid {

class DigestStore {
 public:
  /// One file's digest (at most 255 bytes: a longer one is a caller's bug,
  /// std::length_error) and path.
  void Add(HashAlgorithm algorithm, std::span<const std::uint8_t> digest, std::string_view path);
  /// Calls `each` for every file in the order they were added.
  void ForEach(const std::function<void(HashAlgorithm, std::span<const std::uint8_t>,
                                        std::string_view)>& each) const;
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

 private:
  /// Records, each whole in one block: u8 algorithm, u8 digest length, u32
  /// path length (little-endian), the digest, the path.
  std::vector<std::string> blocks_;
  std::size_t count_ = 0;
};

}  // namespace braid
