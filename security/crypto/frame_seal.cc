#include "security/crypto/frame_seal.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdlib>
#include <limits>

#include "braid/error.h"

namespace braid {

/// What sealer and opener share: the context, the key, the frame counter and
/// the key-update schedule. Owned by one thread (see frame_seal.h).
class FrameCipher {
 public:
  FrameCipher(const StreamKey& key, KeyUpdateLimits limits, bool encrypt)
      : key_(key), limits_(limits), encrypt_(encrypt), ctx_(EVP_CIPHER_CTX_new()) {
    if (ctx_ == nullptr || !Init(Algorithm(key.cipher()), nullptr) ||
        EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(kSealNonceSize),
                            nullptr) != 1 ||
        !Init(nullptr, key_.bytes().data())) {
      std::abort();  // the cipher is compiled into every libcrypto braid builds with
    }
  }
  ~FrameCipher() { EVP_CIPHER_CTX_free(ctx_); }
  FrameCipher(const FrameCipher&) = delete;
  FrameCipher& operator=(const FrameCipher&) = delete;

  /// Runs one frame through the cipher: AAD, payload in place; false on a
  /// failed tag when opening.
  bool Run(std::span<const std::uint8_t> header, std::span<std::uint8_t> payload,
           std::span<std::uint8_t, kSealTagSize> tag) {
    return Run(header, payload, payload, tag);
  }
  /// The same from `in` into `out` (the same size; may be the same bytes).
  bool Run(std::span<const std::uint8_t> header, std::span<const std::uint8_t> in,
           std::span<std::uint8_t> out, std::span<std::uint8_t, kSealTagSize> tag) {
    return Begin(header) && Piece(in, out) && End(tag);
  }
  /// A frame in pieces: its header, then each piece of its payload in order,
  /// then its tag (written when sealing, checked when opening).
  bool Begin(std::span<const std::uint8_t> header) {
    if (frames_ == std::numeric_limits<std::uint64_t>::max()) {
      throw BraidError(ErrorCode::kInternal, "a data stream sealed 2^64 frames under one key");
    }
    std::uint8_t nonce[kSealNonceSize] = {};
    for (int i = 0; i < 8; ++i) {
      nonce[kSealNonceSize - 1 - static_cast<std::size_t>(i)] =
          static_cast<std::uint8_t>(frames_ >> (8 * i));
    }
    int len = 0;
    frame_bytes_ = 0;
    return Init(nullptr, nullptr, nonce) && Update(nullptr, header.data(), header.size(), len);
  }
  bool Piece(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
    if (out.size() != in.size()) std::abort();  // a caller's bug, not the peer's
    int len = 0;
    for (std::size_t done = 0; done < in.size();) {
      const std::size_t piece = std::min<std::size_t>(in.size() - done, INT_MAX / 2);
      if (!Update(out.data() + done, in.data() + done, piece, len)) return false;
      done += piece;
    }
    frame_bytes_ += in.size();
    return true;
  }
  bool End(std::span<std::uint8_t, kSealTagSize> tag) {
    int len = 0;
    bool ok = encrypt_ || Ctrl(EVP_CTRL_AEAD_SET_TAG, tag.data());
    ok = ok && (encrypt_ ? EVP_EncryptFinal_ex(ctx_, nullptr, &len)
                         : EVP_DecryptFinal_ex(ctx_, nullptr, &len)) == 1;
    if (ok && encrypt_) ok = Ctrl(EVP_CTRL_AEAD_GET_TAG, tag.data());
    if (!ok) return false;
    Count(frame_bytes_);
    return true;
  }
  std::uint64_t frames() const { return frames_; }

 private:
  static const EVP_CIPHER* Algorithm(Cipher c) {
    switch (c) {
      case Cipher::kAes128Gcm:
        return EVP_aes_128_gcm();
      case Cipher::kAes256Gcm:
        return EVP_aes_256_gcm();
      case Cipher::kChacha20Poly1305:
        return EVP_chacha20_poly1305();
      case Cipher::kNone:
        break;
    }
    std::abort();  // a StreamKey is never made for kNone
  }
  bool Init(const EVP_CIPHER* algorithm, const std::uint8_t* key,
            const std::uint8_t* iv = nullptr) {
    return (encrypt_ ? EVP_EncryptInit_ex(ctx_, algorithm, nullptr, key, iv)
                     : EVP_DecryptInit_ex(ctx_, algorithm, nullptr, key, iv)) == 1;
  }
  bool Update(std::uint8_t* out, const std::uint8_t* in, std::size_t n, int& len) {
    if (n == 0) return true;
    const int size = static_cast<int>(n);
    return (encrypt_ ? EVP_EncryptUpdate(ctx_, out, &len, in, size)
                     : EVP_DecryptUpdate(ctx_, out, &len, in, size)) == 1;
  }
  bool Ctrl(int what, std::uint8_t* tag) {
    return EVP_CIPHER_CTX_ctrl(ctx_, what, static_cast<int>(kSealTagSize), tag) == 1;
  }
  /// Counts a frame, and moves to the next key where the schedule says.
  void Count(std::size_t bytes) {
    ++frames_;
    ++frames_on_key_;
    bytes_on_key_ += bytes;
    if (frames_on_key_ < limits_.frames && bytes_on_key_ < limits_.bytes) return;
    key_ = key_.Next(++epoch_);
    frames_on_key_ = 0;
    bytes_on_key_ = 0;
    if (!Init(nullptr, key_.bytes().data())) std::abort();
  }

  StreamKey key_;
  KeyUpdateLimits limits_;
  bool encrypt_;
  EVP_CIPHER_CTX* ctx_;
  std::uint64_t frames_ = 0;  ///< the next frame's nonce
  std::uint64_t epoch_ = 0;   ///< key updates so far
  std::uint64_t frames_on_key_ = 0;
  std::uint64_t bytes_on_key_ = 0;
  std::uint64_t frame_bytes_ = 0;  ///< payload bytes of the frame in progress
};

FrameSealer::FrameSealer(const StreamKey& key, KeyUpdateLimits limits)
    : cipher_(std::make_unique<FrameCipher>(key, limits, true)) {}
FrameSealer::~FrameSealer() = default;

void FrameSealer::Seal(std::span<const std::uint8_t> header, std::span<std::uint8_t> payload,
                       std::span<std::uint8_t, kSealTagSize> tag) {
  if (!cipher_->Run(header, payload, tag)) std::abort();  // encryption has no peer to blame
}
void FrameSealer::Seal(std::span<const std::uint8_t> header, std::span<const std::uint8_t> in,
                       std::span<std::uint8_t> out, std::span<std::uint8_t, kSealTagSize> tag) {
  if (!cipher_->Run(header, in, out, tag)) std::abort();
}
void FrameSealer::Begin(std::span<const std::uint8_t> header) {
  if (!cipher_->Begin(header)) std::abort();
}
void FrameSealer::Continue(std::span<const std::uint8_t> in, std::span<std::uint8_t> out) {
  if (!cipher_->Piece(in, out)) std::abort();
}
void FrameSealer::End(std::span<std::uint8_t, kSealTagSize> tag) {
  if (!cipher_->End(tag)) std::abort();
}
std::uint64_t FrameSealer::frames() const { return cipher_->frames(); }

FrameOpener::FrameOpener(const StreamKey& key, KeyUpdateLimits limits)
    : cipher_(std::make_unique<FrameCipher>(key, limits, false)) {}
FrameOpener::~FrameOpener() = default;

bool FrameOpener::Open(std::span<const std::uint8_t> header, std::span<std::uint8_t> payload,
                       std::span<const std::uint8_t, kSealTagSize> tag) {
  std::array<std::uint8_t, kSealTagSize> expected{};
  std::copy(tag.begin(), tag.end(), expected.begin());
  if (!failed_ && cipher_->Run(header, payload, expected)) return true;
  failed_ = true;
  OPENSSL_cleanse(payload.data(), payload.size());
  return false;
}
std::uint64_t FrameOpener::frames() const { return cipher_->frames(); }

}  // namespace braid
