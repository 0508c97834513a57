#include "agent/report/digest_store.h"

#include <algorithm>
#include <stdexcept>

namespace braid {
namespace {

/// A block is this large unless one record is larger.
constexpr std::size_t kBlockSize = 1u << 20;
constexpr std::size_t kHeader = 6;

}  // namespace

void DigestStore::Add(HashAlgorithm algorithm, std::span<const std::uint8_t> digest,
                      std::string_view path) {
  if (digest.size() > 0xff || path.size() > 0xffffffffu) {
    throw std::length_error("DigestStore::Add: digest or path too long");
  }
  const std::size_t record = kHeader + digest.size() + path.size();
  if (blocks_.empty() || blocks_.back().size() + record > blocks_.back().capacity()) {
    blocks_.emplace_back().reserve(std::max(kBlockSize, record));
  }
  std::string& block = blocks_.back();
  block += static_cast<char>(algorithm);
  block += static_cast<char>(digest.size());
  for (int shift = 0; shift < 32; shift += 8) block += static_cast<char>(path.size() >> shift);
  block.append(reinterpret_cast<const char*>(digest.data()), digest.size());
  block.append(path);
  ++count_;
}

void DigestStore::ForEach(const std::function<void(HashAlgorithm, std::span<const std::uint8_t>,
                                                   std::string_view)>& each) const {
  for (const std::string& block : blocks_) {
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(block.data());
    for (std::size_t at = 0; at < block.size();) {
      const auto algorithm = static_cast<HashAlgorithm>(bytes[at]);
      const std::size_t digest = bytes[at + 1];
      std::size_t path = 0;
      for (std::size_t i = 0; i < 4; ++i) path |= std::size_t{bytes[at + 2 + i]} << (8 * i);
      at += kHeader;
      each(algorithm, {bytes + at, digest}, std::string_view(block).substr(at + digest, path));
      at += digest + path;
    }
  }
}

}  // namespace braid
