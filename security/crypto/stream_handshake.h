#pragma once
/// The data-stream handshake: each TCP stream proves, in both directions, that
/// its end knows the session secret. Pure logic: bytes in, bytes out, no IO.
///
///   connector -> listener  HELLO     magic, version, session id, stream index, nonce_c
///   listener  -> connector CHALLENGE nonce_l, HMAC(secret, "L" | id | index | nonce_c | nonce_l)
///   connector -> listener  PROOF     HMAC(secret, "C" | id | index | nonce_l | nonce_c)
///   listener  -> connector ACCEPT    one byte
///
/// Both MACs cover both fresh nonces, so an answer recorded from one connection
/// is useless on another; distinct labels stop a listener's MAC being reflected.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "braid/cipher.h"
#include "security/crypto/session_secret.h"
#include "security/crypto/stream_keys.h"

namespace braid {

constexpr std::size_t kMacSize = 32;
constexpr std::uint32_t kHandshakeMagic = 0x42524448;  // "BRDH"
constexpr std::uint16_t kHandshakeVersion = 1;
constexpr std::size_t kHelloSize = 4 + 2 + kSessionIdSize + 2 + kNonceSize;
constexpr std::size_t kChallengeSize = kNonceSize + kMacSize;
constexpr std::size_t kProofSize = kMacSize;
constexpr std::uint8_t kAcceptByte = 0xA5;

using Mac = std::array<std::uint8_t, kMacSize>;

/// The two keys of a stream whose handshake succeeded, as one end sees them.
struct StreamKeys {
  StreamKey send;     ///< seals what this end sends
  StreamKey receive;  ///< opens what this end receives
};

class HandshakeConnector {
 public:
  HandshakeConnector(const Secret& secret, const SessionId& session, std::uint16_t stream_index,
                     const Nonce& nonce);
  std::vector<std::uint8_t> Hello() const;
  /// Checks the listener's MAC and returns the proof to send.
  /// Throws BraidError(kProtocol) when the listener does not know the secret.
  std::vector<std::uint8_t> OnChallenge(std::span<const std::uint8_t> challenge);
  /// This stream's keys under `cipher` (not kNone), after OnChallenge succeeded.
  StreamKeys Keys(Cipher cipher) const;

 private:
  const Secret& secret_;
  SessionId session_;
  std::uint16_t stream_index_;
  Nonce nonce_;
  Nonce peer_nonce_{};
  bool proven_ = false;  ///< the listener's MAC checked out
};

class HandshakeListener {
 public:
  HandshakeListener(const Secret& secret, const SessionId& session, std::uint16_t stream_limit,
                    const Nonce& nonce);
  /// Validates HELLO (magic, version, session, index below the limit) and
  /// returns the challenge. Throws BraidError(kProtocol) on any mismatch.
  std::vector<std::uint8_t> OnHello(std::span<const std::uint8_t> hello);
  /// Verifies the proof in constant time; returns the stream index on success.
  std::uint16_t OnProof(std::span<const std::uint8_t> proof);
  /// This stream's keys under `cipher` (not kNone), after OnProof succeeded.
  StreamKeys Keys(Cipher cipher) const;

 private:
  const Secret& secret_;
  SessionId session_;
  std::uint16_t stream_limit_;
  Nonce nonce_;
  Nonce peer_nonce_{};
  std::uint16_t stream_index_ = 0;
  bool have_hello_ = false;
  bool proven_ = false;  ///< the connector's proof checked out
};

}  // namespace braid
