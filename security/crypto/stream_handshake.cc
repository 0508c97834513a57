#include "security/crypto/stream_handshake.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>

#include "braid/wire.h"

namespace braid {
namespace {

constexpr std::uint8_t kListenerLabel[] = {'b', 'r', 'a', 'i', 'd', '-', 'L', '1'};
constexpr std::uint8_t kConnectorLabel[] = {'b', 'r', 'a', 'i', 'd', '-', 'C', '1'};

Mac ComputeMac(const Secret& secret, std::span<const std::uint8_t> label, const SessionId& session,
               std::uint16_t index, const Nonce& first, const Nonce& second) {
  WireWriter w;
  w.Bytes(label);
  w.Bytes(session);
  w.U16(index);
  w.Bytes(first);
  w.Bytes(second);
  Mac mac{};
  unsigned int len = 0;
  if (HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()), w.data().data(),
           w.data().size(), mac.data(), &len) == nullptr ||
      len != mac.size()) {
    std::abort();  // HMAC-SHA256 unavailable: a broken libcrypto
  }
  return mac;
}

bool EqualConstantTime(std::span<const std::uint8_t> a, const Mac& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), b.size()) == 0;
}

template <std::size_t N>
std::array<std::uint8_t, N> ToArray(std::span<const std::uint8_t> s) {
  std::array<std::uint8_t, N> a{};
  std::copy(s.begin(), s.end(), a.begin());
  return a;
}

/// A stream's two keys as the connector (`connector`) or the listener sees them.
StreamKeys KeysOf(Cipher cipher, const Secret& secret, const SessionId& session,
                  std::uint16_t index, const Nonce& connector_nonce, const Nonce& listener_nonce,
                  bool connector) {
  auto key = [&](StreamDirection direction) {
    return DeriveStreamKey(cipher, secret, session, index, connector_nonce, listener_nonce,
                           direction);
  };
  StreamKey to_listener = key(StreamDirection::kConnectorToListener);
  StreamKey to_connector = key(StreamDirection::kListenerToConnector);
  return connector ? StreamKeys{to_listener, to_connector} : StreamKeys{to_connector, to_listener};
}

}  // namespace

HandshakeConnector::HandshakeConnector(const Secret& secret, const SessionId& session,
                                       std::uint16_t stream_index, const Nonce& nonce)
    : secret_(secret), session_(session), stream_index_(stream_index), nonce_(nonce) {}

std::vector<std::uint8_t> HandshakeConnector::Hello() const {
  WireWriter w;
  w.U32(kHandshakeMagic);
  w.U16(kHandshakeVersion);
  w.Bytes(session_);
  w.U16(stream_index_);
  w.Bytes(nonce_);
  return w.Take();
}

std::vector<std::uint8_t> HandshakeConnector::OnChallenge(std::span<const std::uint8_t> challenge) {
  WireReader r(challenge);
  auto peer_nonce = ToArray<kNonceSize>(r.Bytes(kNonceSize));
  auto peer_mac = r.Bytes(kMacSize);
  r.ExpectEnd();
  Mac expected = ComputeMac(secret_, kListenerLabel, session_, stream_index_, nonce_, peer_nonce);
  if (!EqualConstantTime(peer_mac, expected)) {
    WireReader::Fail("data listener failed authentication (it does not know the session secret)");
  }
  Mac proof = ComputeMac(secret_, kConnectorLabel, session_, stream_index_, peer_nonce, nonce_);
  peer_nonce_ = peer_nonce;
  proven_ = true;
  return {proof.begin(), proof.end()};
}

StreamKeys HandshakeConnector::Keys(Cipher cipher) const {
  if (!proven_) std::abort();  // a bug: keys of an unauthenticated stream
  return KeysOf(cipher, secret_, session_, stream_index_, nonce_, peer_nonce_, true);
}

HandshakeListener::HandshakeListener(const Secret& secret, const SessionId& session,
                                     std::uint16_t stream_limit, const Nonce& nonce)
    : secret_(secret), session_(session), stream_limit_(stream_limit), nonce_(nonce) {}

std::vector<std::uint8_t> HandshakeListener::OnHello(std::span<const std::uint8_t> hello) {
  WireReader r(hello);
  if (r.U32() != kHandshakeMagic) WireReader::Fail("not a braid data connection");
  if (std::uint16_t v = r.U16(); v != kHandshakeVersion) {
    WireReader::Fail("data handshake version " + std::to_string(v) + " is not supported");
  }
  auto session = r.Bytes(kSessionIdSize);
  if (!std::equal(session.begin(), session.end(), session_.begin())) {
    WireReader::Fail("data connection for another transfer");
  }
  stream_index_ = r.U16();
  if (stream_index_ >= stream_limit_) WireReader::Fail("data stream index out of range");
  peer_nonce_ = ToArray<kNonceSize>(r.Bytes(kNonceSize));
  r.ExpectEnd();
  have_hello_ = true;
  Mac mac = ComputeMac(secret_, kListenerLabel, session_, stream_index_, peer_nonce_, nonce_);
  WireWriter w;
  w.Bytes(nonce_);
  w.Bytes(mac);
  return w.Take();
}

std::uint16_t HandshakeListener::OnProof(std::span<const std::uint8_t> proof) {
  if (!have_hello_) WireReader::Fail("data handshake proof before hello");
  Mac expected = ComputeMac(secret_, kConnectorLabel, session_, stream_index_, nonce_, peer_nonce_);
  if (!EqualConstantTime(proof, expected)) {
    WireReader::Fail("data connection failed authentication");
  }
  proven_ = true;
  return stream_index_;
}

StreamKeys HandshakeListener::Keys(Cipher cipher) const {
  if (!proven_) std::abort();  // a bug: keys of an unauthenticated stream
  return KeysOf(cipher, secret_, session_, stream_index_, peer_nonce_, nonce_, false);
}

}  // namespace braid
