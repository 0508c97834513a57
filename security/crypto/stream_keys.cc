#include "security/crypto/stream_keys.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <algorithm>
#include <cstdlib>

#include "braid/wire.h"

namespace braid {
namespace {

constexpr std::uint8_t kKeyLabel[] = {'b', 'r', 'a', 'i', 'd', ' ', 'd', 'a', 't',
                                      'a', ' ', 'k', 'e', 'y', ' ', 'v', '1'};
constexpr std::uint8_t kUpdateLabel[] = {'b', 'r', 'a', 'i', 'd', ' ', 'k', 'e',
                                         'y', ' ', 'u', 'p', 'd', 'a', 't', 'e'};

}  // namespace

void HkdfSha256(std::span<const std::uint8_t> ikm, std::span<const std::uint8_t> salt,
                std::span<const std::uint8_t> info, std::span<std::uint8_t> out) {
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  EVP_KDF_CTX* ctx = kdf != nullptr ? EVP_KDF_CTX_new(kdf) : nullptr;
  EVP_KDF_free(kdf);
  if (ctx == nullptr) std::abort();  // no HKDF in this libcrypto
  // OSSL_PARAM takes non-const pointers; EVP_KDF_derive only reads them. An
  // empty salt or info is left out (libcrypto refuses a null octet string),
  // which RFC 5869 defines as the same thing.
  auto* digest = const_cast<char*>("SHA256");
  OSSL_PARAM params[5];
  std::size_t n = 0;
  params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
  auto add = [&](const char* key, std::span<const std::uint8_t> s) {
    if (!s.empty()) {
      params[n++] =
          OSSL_PARAM_construct_octet_string(key, const_cast<std::uint8_t*>(s.data()), s.size());
    }
  };
  add(OSSL_KDF_PARAM_KEY, ikm);
  add(OSSL_KDF_PARAM_SALT, salt);
  add(OSSL_KDF_PARAM_INFO, info);
  params[n] = OSSL_PARAM_construct_end();
  const int ok = EVP_KDF_derive(ctx, out.data(), out.size(), params);
  EVP_KDF_CTX_free(ctx);
  if (ok != 1) std::abort();
}

StreamKey::StreamKey(Cipher cipher, std::span<const std::uint8_t> bytes) : cipher_(cipher) {
  if (CipherKeySize(cipher) == 0 || bytes.size() != CipherKeySize(cipher)) std::abort();
  std::copy(bytes.begin(), bytes.end(), bytes_.begin());
}

StreamKey::StreamKey(const StreamKey& other) : cipher_(other.cipher_), bytes_(other.bytes_) {}

StreamKey& StreamKey::operator=(const StreamKey& other) {
  cipher_ = other.cipher_;
  bytes_ = other.bytes_;
  return *this;
}

StreamKey::~StreamKey() { OPENSSL_cleanse(bytes_.data(), bytes_.size()); }

StreamKey StreamKey::Next(std::uint64_t epoch) const {
  WireWriter info;
  info.Bytes(kUpdateLabel);
  info.U64(epoch);
  std::array<std::uint8_t, kMaxCipherKeySize> next{};
  const std::size_t size = CipherKeySize(cipher_);
  HkdfSha256(bytes(), {}, info.data(), std::span(next.data(), size));
  StreamKey key(cipher_, std::span(next.data(), size));
  OPENSSL_cleanse(next.data(), next.size());
  return key;
}

StreamKey DeriveStreamKey(Cipher cipher, const Secret& secret, const SessionId& session,
                          std::uint16_t stream_index, const Nonce& connector_nonce,
                          const Nonce& listener_nonce, StreamDirection direction) {
  WireWriter salt;
  salt.Bytes(connector_nonce);
  salt.Bytes(listener_nonce);
  WireWriter info;
  info.Bytes(kKeyLabel);
  info.U8(static_cast<std::uint8_t>(cipher));
  info.Bytes(session);
  info.U16(stream_index);
  info.U8(static_cast<std::uint8_t>(direction));
  std::array<std::uint8_t, kMaxCipherKeySize> bytes{};
  const std::size_t size = CipherKeySize(cipher);
  HkdfSha256(secret, salt.data(), info.data(), std::span(bytes.data(), size));
  StreamKey key(cipher, std::span(bytes.data(), size));
  OPENSSL_cleanse(bytes.data(), bytes.size());
  return key;
}

}  // namespace braid
