#include "security/md5_digest.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace braid {

struct Md5Digest::Ctx {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~Ctx() { EVP_MD_CTX_free(ctx); }
};

namespace {
void InitOrAbort(EVP_MD_CTX* ctx) {
  // MD5 missing from libcrypto is a broken installation, not a user error.
  if (ctx == nullptr || EVP_DigestInit_ex(ctx, EVP_md5(), nullptr) != 1) std::abort();
}
}  // namespace

Md5Digest::Md5Digest() : ctx_(std::make_unique<Ctx>()) { InitOrAbort(ctx_->ctx); }
Md5Digest::~Md5Digest() = default;
Md5Digest::Md5Digest(Md5Digest&&) noexcept = default;
Md5Digest& Md5Digest::operator=(Md5Digest&&) noexcept = default;

void Md5Digest::Update(const void* data, std::size_t n) {
  if (EVP_DigestUpdate(ctx_->ctx, data, n) != 1) std::abort();
}

Md5Value Md5Digest::Finish() {
  Md5Value out{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_->ctx, out.data(), &len) != 1 || len != out.size()) std::abort();
  InitOrAbort(ctx_->ctx);
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
