#include "security/crypto/file_digest.h"

#include <openssl/evp.h>
#include <xxhash.h>

#include <algorithm>
#include <cstdlib>

namespace braid {

/// One of the two back ends is set, by the algorithm.
struct FileDigest::Ctx {
  EVP_MD_CTX* evp = nullptr;
  const EVP_MD* md = nullptr;
  XXH3_state_t* xxh = nullptr;
  ~Ctx() {
    EVP_MD_CTX_free(evp);
    XXH3_freeState(xxh);
  }
  // A digest missing from libcrypto or an allocation failure is a broken
  // installation or an exhausted machine, not a user error.
  void Reset() {
    if (xxh != nullptr) {
      if (XXH3_128bits_reset(xxh) != XXH_OK) std::abort();
    } else if (evp == nullptr || EVP_DigestInit_ex(evp, md, nullptr) != 1) {
      std::abort();
    }
  }
};

DigestValue MakeDigestValue(std::span<const std::uint8_t> data) {
  DigestValue v;
  if (data.size() > v.bytes.size()) std::abort();
  std::copy(data.begin(), data.end(), v.bytes.begin());
  v.size = static_cast<std::uint8_t>(data.size());
  return v;
}

FileDigest::FileDigest(HashAlgorithm algorithm)
    : algorithm_(algorithm), ctx_(std::make_unique<Ctx>()) {
  switch (algorithm) {
    case HashAlgorithm::kMd5:
      ctx_->md = EVP_md5();
      ctx_->evp = EVP_MD_CTX_new();
      break;
    case HashAlgorithm::kSha256:
      ctx_->md = EVP_sha256();
      ctx_->evp = EVP_MD_CTX_new();
      break;
    case HashAlgorithm::kXxh128:
      ctx_->xxh = XXH3_createState();
      if (ctx_->xxh == nullptr) std::abort();
      break;
    case HashAlgorithm::kNone:
      std::abort();  // callers only make a digest when a hash was asked for
  }
  ctx_->Reset();
}
FileDigest::~FileDigest() = default;
FileDigest::FileDigest(FileDigest&&) noexcept = default;
FileDigest& FileDigest::operator=(FileDigest&&) noexcept = default;

void FileDigest::Update(const void* data, std::size_t n) {
  if (ctx_->xxh != nullptr) {
    if (XXH3_128bits_update(ctx_->xxh, data, n) != XXH_OK) std::abort();
  } else if (EVP_DigestUpdate(ctx_->evp, data, n) != 1) {
    std::abort();
  }
}

DigestValue FileDigest::Finish() {
  DigestValue out;
  out.size = static_cast<std::uint8_t>(DigestSize(algorithm_));
  if (ctx_->xxh != nullptr) {
    // The canonical form is big-endian, the byte order xxh128sum prints.
    XXH128_canonical_t canonical;
    XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(ctx_->xxh));
    std::copy(std::begin(canonical.digest), std::end(canonical.digest), out.bytes.begin());
  } else {
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_->evp, out.bytes.data(), &len) != 1 || len != out.size) {
      std::abort();
    }
  }
  ctx_->Reset();
  return out;
}

std::string ToHex(const std::uint8_t* data, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    s.push_back(kDigits[data[i] >> 4]);
    s.push_back(kDigits[data[i] & 15]);
  }
  return s;
}

}  // namespace braid
