#pragma once
/// Each file's end-to-end digest by file id, kept for a file end the sink asks
/// for again: only the digest's bytes (16 for MD5) and a bit that it is known,
/// where an `optional<DigestValue>` a file cost 34 bytes (a million files,
/// 34 MiB). Pure: no IO.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "braid/hash_algorithm.h"
#include "security/crypto/file_digest.h"

namespace braid {

class FileDigests {
 public:
  /// Room for `files` digests of `algorithm`, none known; kNone keeps nothing.
  void Reset(std::size_t files, HashAlgorithm algorithm);
  /// Records file `id`'s digest; a digest of another length, or an id past
  /// Reset's count, is a caller's bug (std::logic_error).
  void Put(std::uint32_t id, const DigestValue& digest);
  /// File `id`'s digest, or nullopt while it is not known.
  std::optional<DigestValue> Get(std::uint32_t id) const;

 private:
  std::size_t digest_size_ = 0;
  std::vector<std::uint8_t> bytes_;  ///< digest_size_ bytes a file, by id
  std::vector<bool> known_;
};

}  // namespace braid
