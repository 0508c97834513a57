#include "source/file_digests.h"

#include <algorithm>
#include <stdexcept>

namespace braid {

void FileDigests::Reset(std::size_t files, HashAlgorithm algorithm) {
  digest_size_ = InfoOf(algorithm).digest_size;
  bytes_.assign(files * digest_size_, 0);
  known_.assign(digest_size_ == 0 ? 0 : files, false);
}

void FileDigests::Put(std::uint32_t id, const DigestValue& digest) {
  if (id >= known_.size() || digest.size != digest_size_) {
    throw std::logic_error("FileDigests: a digest put past the list or of another length");
  }
  std::copy_n(digest.bytes.data(), digest_size_, bytes_.data() + std::size_t{id} * digest_size_);
  known_[id] = true;
}

std::optional<DigestValue> FileDigests::Get(std::uint32_t id) const {
  if (id >= known_.size() || !known_[id]) return std::nullopt;
  DigestValue digest;
  digest.size = static_cast<std::uint8_t>(digest_size_);
  std::copy_n(bytes_.data() + std::size_t{id} * digest_size_, digest_size_, digest.bytes.data());
  return digest;
}

}  // namespace braid
