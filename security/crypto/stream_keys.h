#pragma once
/// The keys that seal a data stream's frames (--cipher). Each stream gets one
/// key per direction, derived with HKDF-SHA256 from the session secret and the
/// two fresh nonces of that stream's handshake, and bound to the session id,
/// the stream index, the direction and the cipher: no two streams, directions,
/// sessions or reconnects of a stream share a key, so a frame moved between
/// any of them fails its tag. Pure: no IO.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "braid/cipher.h"
#include "security/crypto/session_secret.h"

namespace braid {

/// HKDF-SHA256 (RFC 5869), extract then expand, through OpenSSL's EVP_KDF.
/// Fills `out` (at most 255 * 32 bytes); aborts if libcrypto cannot, since a
/// broken KDF must not yield predictable keys.
void HkdfSha256(std::span<const std::uint8_t> ikm, std::span<const std::uint8_t> salt,
                std::span<const std::uint8_t> info, std::span<std::uint8_t> out);

/// Which way a frame travels on its stream; the handshake's roles name it, so
/// both ends agree whichever of them connected (-z turns the roles around).
enum class StreamDirection : std::uint8_t {
  kConnectorToListener = 1,
  kListenerToConnector = 2,
};

/// One direction's key. The bytes are wiped when it goes.
class StreamKey {
 public:
  StreamKey(Cipher cipher, std::span<const std::uint8_t> bytes);
  ~StreamKey();
  StreamKey(const StreamKey& other);
  /// Overwrites this key's bytes (a key update).
  StreamKey& operator=(const StreamKey& other);

  Cipher cipher() const { return cipher_; }
  std::span<const std::uint8_t> bytes() const { return {bytes_.data(), CipherKeySize(cipher_)}; }
  /// The key that follows this one after a key update (both ends derive it at
  /// the same frame, so nothing travels): HKDF of this key and the epoch.
  StreamKey Next(std::uint64_t epoch) const;

 private:
  Cipher cipher_;
  std::array<std::uint8_t, kMaxCipherKeySize> bytes_{};
};

/// The key for `direction` of stream `stream_index`, from `secret` and the
/// handshake's nonces. `cipher` must not be kNone.
StreamKey DeriveStreamKey(Cipher cipher, const Secret& secret, const SessionId& session,
                          std::uint16_t stream_index, const Nonce& connector_nonce,
                          const Nonce& listener_nonce, StreamDirection direction);

}  // namespace braid
