#pragma once
/// The end-to-end hash of a whole file (-E): MD5 and SHA-256 through OpenSSL's
/// EVP, XXH3-128 through libxxhash's streaming API. Each gives the value its
/// `*sum` tool prints (md5sum, sha256sum, xxh128sum), so users can check a
/// copy with the tools they already have.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "braid/hash_algorithm.h"

namespace braid {

/// A digest of any algorithm: `size` bytes of `bytes` are used, the rest are 0.
struct DigestValue {
  std::array<std::uint8_t, kMaxDigestSize> bytes{};
  std::uint8_t size = 0;

  std::span<const std::uint8_t> view() const { return {bytes.data(), size}; }
  bool operator==(const DigestValue&) const = default;
};

/// Copies `data` into a DigestValue; aborts if it is longer than any digest
/// (callers check lengths from the wire first).
DigestValue MakeDigestValue(std::span<const std::uint8_t> data);

class FileDigest {
 public:
  /// `algorithm` must not be kNone.
  explicit FileDigest(HashAlgorithm algorithm);
  ~FileDigest();
  FileDigest(const FileDigest&) = delete;
  FileDigest& operator=(const FileDigest&) = delete;
  FileDigest(FileDigest&&) noexcept;
  FileDigest& operator=(FileDigest&&) noexcept;

  HashAlgorithm algorithm() const { return algorithm_; }
  void Update(const void* data, std::size_t n);
  /// Returns the digest; the object then starts over.
  DigestValue Finish();

 private:
  struct Ctx;
  HashAlgorithm algorithm_;
  std::unique_ptr<Ctx> ctx_;
};

/// Lower-case hex, as the `*sum` tools print it.
std::string ToHex(const std::uint8_t* data, std::size_t n);
inline std::string ToHex(const DigestValue& v) { return ToHex(v.bytes.data(), v.size); }

}  // namespace braid
