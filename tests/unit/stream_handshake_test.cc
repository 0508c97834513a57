#include "security/crypto/stream_handshake.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "braid/error.h"
#include "security/crypto/session_secret.h"
#include "thrown_code.h"

namespace braid {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes Prefix(const Bytes& b, std::size_t n) {
  return Bytes(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
}

class StreamHandshakeTest : public ::testing::Test {
 protected:
  // The classes keep a reference to the secret, so it lives in the fixture.
  Secret secret_ = RandomArray<kSecretSize>();
  Secret other_secret_ = RandomArray<kSecretSize>();
  SessionId session_ = RandomArray<kSessionIdSize>();
  static constexpr std::uint16_t kLimit = 4;
};

/// Where a tampered exchange was stopped.
enum class Stage { kNone, kOnHello, kOnChallenge, kOnProof };

/// Runs a whole exchange, letting `tamper_*` change each message in flight;
/// returns the stage that threw a kProtocol error, or kNone if it succeeded.
Stage RunExchange(const Secret& connector_secret, const Secret& listener_secret,
                  const SessionId& session, std::uint16_t index,
                  const std::function<void(Bytes&)>& tamper_hello,
                  const std::function<void(Bytes&)>& tamper_challenge,
                  const std::function<void(Bytes&)>& tamper_proof,
                  std::uint16_t* accepted_index = nullptr) {
  HandshakeConnector connector(connector_secret, session, index, RandomArray<kNonceSize>());
  HandshakeListener listener(listener_secret, session, 4, RandomArray<kNonceSize>());
  Bytes hello = connector.Hello();
  if (tamper_hello) tamper_hello(hello);
  Bytes challenge;
  try {
    challenge = listener.OnHello(hello);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    return Stage::kOnHello;
  }
  if (tamper_challenge) tamper_challenge(challenge);
  Bytes proof;
  try {
    proof = connector.OnChallenge(challenge);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    return Stage::kOnChallenge;
  }
  if (tamper_proof) tamper_proof(proof);
  try {
    std::uint16_t got = listener.OnProof(proof);
    if (accepted_index != nullptr) *accepted_index = got;
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    return Stage::kOnProof;
  }
  return Stage::kNone;
}

TEST_F(StreamHandshakeTest, MessageSizes) {
  HandshakeConnector connector(secret_, session_, 1, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes hello = connector.Hello();
  EXPECT_EQ(hello.size(), kHelloSize);
  Bytes challenge = listener.OnHello(hello);
  EXPECT_EQ(challenge.size(), kChallengeSize);
  Bytes proof = connector.OnChallenge(challenge);
  EXPECT_EQ(proof.size(), kProofSize);
}

TEST_F(StreamHandshakeTest, HelloLayout) {
  Nonce nonce = RandomArray<kNonceSize>();
  HandshakeConnector connector(secret_, session_, 0x0102, nonce);
  Bytes hello = connector.Hello();
  ASSERT_EQ(hello.size(), kHelloSize);
  EXPECT_EQ(Prefix(hello, 6), (Bytes{0x42, 0x52, 0x44, 0x48, 0x00, 0x01}));
  EXPECT_TRUE(std::equal(session_.begin(), session_.end(), hello.begin() + 6));
  EXPECT_EQ(hello[22], 0x01);
  EXPECT_EQ(hello[23], 0x02);
  EXPECT_TRUE(std::equal(nonce.begin(), nonce.end(), hello.begin() + 24));
  // The secret never appears in what the connector sends first.
  for (std::size_t i = 0; i + 4 <= hello.size(); ++i) {
    EXPECT_FALSE(std::equal(secret_.begin(), secret_.begin() + 4,
                            hello.begin() + static_cast<std::ptrdiff_t>(i)));
  }
}

TEST_F(StreamHandshakeTest, FullExchangeReturnsTheStreamIndex) {
  for (std::uint16_t index = 0; index < kLimit; ++index) {
    HandshakeConnector connector(secret_, session_, index, RandomArray<kNonceSize>());
    HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
    Bytes challenge = listener.OnHello(connector.Hello());
    Bytes proof = connector.OnChallenge(challenge);
    EXPECT_EQ(listener.OnProof(proof), index);
    // The proof can be checked again without changing the answer.
    EXPECT_EQ(listener.OnProof(proof), index);
  }
}

Bytes KeyBytes(const StreamKey& key) { return {key.bytes().begin(), key.bytes().end()}; }

TEST_F(StreamHandshakeTest, BothEndsOfAStreamGetMatchingKeysPerDirection) {
  HandshakeConnector connector(secret_, session_, 2, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes proof = connector.OnChallenge(listener.OnHello(connector.Hello()));
  ASSERT_EQ(listener.OnProof(proof), 2);
  for (Cipher cipher : {Cipher::kAes128Gcm, Cipher::kAes256Gcm, Cipher::kChacha20Poly1305}) {
    StreamKeys c = connector.Keys(cipher);
    StreamKeys l = listener.Keys(cipher);
    EXPECT_EQ(KeyBytes(c.send), KeyBytes(l.receive)) << CipherName(cipher);
    EXPECT_EQ(KeyBytes(c.receive), KeyBytes(l.send)) << CipherName(cipher);
    EXPECT_NE(KeyBytes(c.send), KeyBytes(c.receive)) << CipherName(cipher);
  }
}

TEST_F(StreamHandshakeTest, AReconnectedStreamGetsFreshKeys) {
  auto keys = [&] {
    HandshakeConnector connector(secret_, session_, 1, RandomArray<kNonceSize>());
    HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
    listener.OnProof(connector.OnChallenge(listener.OnHello(connector.Hello())));
    return KeyBytes(connector.Keys(Cipher::kAes128Gcm).send);
  };
  EXPECT_NE(keys(), keys());
}

TEST_F(StreamHandshakeTest, FreshNoncesGiveFreshMessages) {
  HandshakeConnector c1(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeConnector c2(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeListener l1(secret_, session_, kLimit, RandomArray<kNonceSize>());
  HandshakeListener l2(secret_, session_, kLimit, RandomArray<kNonceSize>());
  EXPECT_NE(c1.Hello(), c2.Hello());
  Bytes ch1 = l1.OnHello(c1.Hello());
  Bytes ch2 = l2.OnHello(c1.Hello());
  EXPECT_NE(ch1, ch2);
  EXPECT_NE(c1.OnChallenge(ch1), c1.OnChallenge(ch2));
}

TEST_F(StreamHandshakeTest, ConnectorRejectsListenerWithAnotherSecret) {
  EXPECT_EQ(RunExchange(secret_, other_secret_, session_, 0, nullptr, nullptr, nullptr),
            Stage::kOnChallenge);
}

TEST_F(StreamHandshakeTest, ListenerRejectsConnectorWithAnotherSecret) {
  // An impostor connector that skips checking the challenge still cannot prove.
  HandshakeConnector impostor(other_secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes challenge = listener.OnHello(impostor.Hello());
  // A proof computed with the wrong secret: run the impostor against a listener
  // that shares its secret, over the same nonces.
  Nonce listener_nonce{};
  std::copy(challenge.begin(), challenge.begin() + kNonceSize, listener_nonce.begin());
  HandshakeListener twin(other_secret_, session_, kLimit, listener_nonce);
  Bytes twin_challenge = twin.OnHello(impostor.Hello());
  Bytes proof = impostor.OnChallenge(twin_challenge);
  EXPECT_EQ(twin.OnProof(proof), 0);  // valid under the wrong secret...
  EXPECT_EQ(ThrownCode([&] { listener.OnProof(proof); }), ErrorCode::kProtocol);  // ...not ours
}

TEST_F(StreamHandshakeTest, ReplayedProofIsRejectedByANewListener) {
  Nonce connector_nonce = RandomArray<kNonceSize>();
  HandshakeConnector connector(secret_, session_, 2, connector_nonce);
  HandshakeListener first(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes hello = connector.Hello();
  Bytes proof = connector.OnChallenge(first.OnHello(hello));
  ASSERT_EQ(first.OnProof(proof), 2);

  // An eavesdropper replays the recorded hello and proof to a new listener.
  HandshakeListener second(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes new_challenge = second.OnHello(hello);
  EXPECT_EQ(ThrownCode([&] { second.OnProof(proof); }), ErrorCode::kProtocol);
  // The genuine connector would still answer the new challenge correctly.
  EXPECT_EQ(second.OnProof(connector.OnChallenge(new_challenge)), 2);
}

TEST_F(StreamHandshakeTest, ReflectedListenerMacIsNotAProof) {
  HandshakeConnector connector(secret_, session_, 1, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes challenge = listener.OnHello(connector.Hello());
  Bytes listener_mac(challenge.begin() + kNonceSize, challenge.end());
  ASSERT_EQ(listener_mac.size(), kMacSize);
  EXPECT_EQ(ThrownCode([&] { listener.OnProof(listener_mac); }), ErrorCode::kProtocol);
}

TEST_F(StreamHandshakeTest, ChallengeFromAnotherConnectionIsRejected) {
  HandshakeConnector a(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeConnector b(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes challenge_for_a = listener.OnHello(a.Hello());
  EXPECT_EQ(ThrownCode([&] { b.OnChallenge(challenge_for_a); }), ErrorCode::kProtocol);
}

TEST_F(StreamHandshakeTest, WrongSessionIdIsRejected) {
  SessionId other = session_;
  other[5] ^= 0x01;
  HandshakeConnector connector(secret_, other, 0, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  EXPECT_EQ(ThrownCode([&] { listener.OnHello(connector.Hello()); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { listener.OnProof(Bytes(kProofSize, 0)); }), ErrorCode::kProtocol);
}

TEST_F(StreamHandshakeTest, StreamIndexAtOrAboveLimitIsRejected) {
  for (std::uint16_t index :
       {kLimit, static_cast<std::uint16_t>(kLimit + 1), std::uint16_t{0xFFFF}}) {
    HandshakeConnector connector(secret_, session_, index, RandomArray<kNonceSize>());
    HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
    EXPECT_EQ(ThrownCode([&] { listener.OnHello(connector.Hello()); }), ErrorCode::kProtocol)
        << index;
  }
  HandshakeConnector connector(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeListener none(secret_, session_, 0, RandomArray<kNonceSize>());
  EXPECT_EQ(ThrownCode([&] { none.OnHello(connector.Hello()); }), ErrorCode::kProtocol);
}

TEST_F(StreamHandshakeTest, ProofForAnotherIndexIsRejected) {
  Nonce listener_nonce = RandomArray<kNonceSize>();
  Nonce connector_nonce = RandomArray<kNonceSize>();
  HandshakeConnector c0(secret_, session_, 0, connector_nonce);
  HandshakeConnector c1(secret_, session_, 1, connector_nonce);
  HandshakeListener l0(secret_, session_, kLimit, listener_nonce);
  HandshakeListener l1(secret_, session_, kLimit, listener_nonce);
  Bytes proof0 = c0.OnChallenge(l0.OnHello(c0.Hello()));
  Bytes challenge1 = l1.OnHello(c1.Hello());
  EXPECT_EQ(ThrownCode([&] { l1.OnProof(proof0); }), ErrorCode::kProtocol);
  EXPECT_EQ(l1.OnProof(c1.OnChallenge(challenge1)), 1);
}

TEST_F(StreamHandshakeTest, EveryBitFlipInHelloIsRejected) {
  for (std::size_t bit = 0; bit < kHelloSize * 8; ++bit) {
    Stage stage = RunExchange(
        secret_, secret_, session_, 1,
        [bit](Bytes& b) { b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8)); }, nullptr,
        nullptr);
    EXPECT_NE(stage, Stage::kNone) << "bit " << bit;
  }
}

TEST_F(StreamHandshakeTest, EveryBitFlipInChallengeIsRejected) {
  for (std::size_t bit = 0; bit < kChallengeSize * 8; ++bit) {
    Stage stage = RunExchange(
        secret_, secret_, session_, 3, nullptr,
        [bit](Bytes& b) { b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8)); }, nullptr);
    EXPECT_EQ(stage, Stage::kOnChallenge) << "bit " << bit;
  }
}

TEST_F(StreamHandshakeTest, EveryBitFlipInProofIsRejected) {
  for (std::size_t bit = 0; bit < kProofSize * 8; ++bit) {
    Stage stage = RunExchange(secret_, secret_, session_, 0, nullptr, nullptr, [bit](Bytes& b) {
      b[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
    });
    EXPECT_EQ(stage, Stage::kOnProof) << "bit " << bit;
  }
}

TEST_F(StreamHandshakeTest, UntamperedExchangeSucceedsThroughTheHarness) {
  std::uint16_t index = 0xFFFF;
  EXPECT_EQ(RunExchange(secret_, secret_, session_, 3, nullptr, nullptr, nullptr, &index),
            Stage::kNone);
  EXPECT_EQ(index, 3);
}

TEST_F(StreamHandshakeTest, TruncatedAndOversizedHelloIsRejected) {
  HandshakeConnector connector(secret_, session_, 0, RandomArray<kNonceSize>());
  Bytes hello = connector.Hello();
  for (std::size_t n = 0; n < hello.size(); ++n) {
    HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
    EXPECT_EQ(ThrownCode([&] { listener.OnHello(Prefix(hello, n)); }), ErrorCode::kProtocol) << n;
    // A failed hello leaves the listener refusing any proof.
    EXPECT_EQ(ThrownCode([&] { listener.OnProof(Bytes(kProofSize, 0)); }), ErrorCode::kProtocol);
  }
  Bytes longer = hello;
  longer.push_back(0);
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  EXPECT_EQ(ThrownCode([&] { listener.OnHello(longer); }), ErrorCode::kProtocol);
}

TEST_F(StreamHandshakeTest, TruncatedAndOversizedChallengeIsRejected) {
  HandshakeConnector connector(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes challenge = listener.OnHello(connector.Hello());
  for (std::size_t n = 0; n < challenge.size(); ++n) {
    EXPECT_EQ(ThrownCode([&] { connector.OnChallenge(Prefix(challenge, n)); }),
              ErrorCode::kProtocol)
        << n;
  }
  Bytes longer = challenge;
  longer.push_back(0);
  EXPECT_EQ(ThrownCode([&] { connector.OnChallenge(longer); }), ErrorCode::kProtocol);
  EXPECT_FALSE(connector.OnChallenge(challenge).empty());
}

TEST_F(StreamHandshakeTest, TruncatedAndOversizedProofIsRejected) {
  HandshakeConnector connector(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  Bytes proof = connector.OnChallenge(listener.OnHello(connector.Hello()));
  for (std::size_t n = 0; n < proof.size(); ++n) {
    EXPECT_EQ(ThrownCode([&] { listener.OnProof(Prefix(proof, n)); }), ErrorCode::kProtocol) << n;
  }
  Bytes longer = proof;
  longer.push_back(0);
  EXPECT_EQ(ThrownCode([&] { listener.OnProof(longer); }), ErrorCode::kProtocol);
  EXPECT_EQ(listener.OnProof(proof), 0);
}

TEST_F(StreamHandshakeTest, ProofBeforeHelloIsRejected) {
  HandshakeConnector connector(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  EXPECT_EQ(ThrownCode([&] { listener.OnProof(Bytes(kProofSize, 0)); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { listener.OnProof(Bytes{}); }), ErrorCode::kProtocol);
}

TEST_F(StreamHandshakeTest, AllZeroProofIsRejected) {
  HandshakeConnector connector(secret_, session_, 0, RandomArray<kNonceSize>());
  HandshakeListener listener(secret_, session_, kLimit, RandomArray<kNonceSize>());
  listener.OnHello(connector.Hello());
  EXPECT_EQ(ThrownCode([&] { listener.OnProof(Bytes(kProofSize, 0)); }), ErrorCode::kProtocol);
}

TEST(SessionSecretTest, RandomArraysDiffer) {
  auto a = RandomArray<kSecretSize>();
  auto b = RandomArray<kSecretSize>();
  EXPECT_NE(a, b);
  std::vector<std::uint8_t> buf(64, 0);
  FillRandom(buf);
  EXPECT_NE(buf, std::vector<std::uint8_t>(64, 0));
}

}  // namespace
}  // namespace braid
