#include "security/crypto/stream_keys.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace braid {
namespace {

std::vector<std::uint8_t> FromHex(const std::string& hex) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(std::stoul(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

std::vector<std::uint8_t> Hkdf(const std::string& ikm, const std::string& salt,
                               const std::string& info, std::size_t length) {
  std::vector<std::uint8_t> out(length);
  HkdfSha256(FromHex(ikm), FromHex(salt), FromHex(info), out);
  return out;
}

// RFC 5869, appendix A, test cases 1-3 (SHA-256).
TEST(HkdfTest, Rfc5869BasicCase) {
  EXPECT_EQ(Hkdf("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "000102030405060708090a0b0c",
                 "f0f1f2f3f4f5f6f7f8f9", 42),
            FromHex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                    "34007208d5b887185865"));
}

TEST(HkdfTest, Rfc5869LongerInputsAndOutputs) {
  auto run = [](int from, int to) {
    std::string s;
    static const char* digits = "0123456789abcdef";
    for (int i = from; i <= to; ++i) {
      s += digits[i >> 4];
      s += digits[i & 15];
    }
    return s;
  };
  EXPECT_EQ(Hkdf(run(0x00, 0x4f), run(0x60, 0xaf), run(0xb0, 0xff), 82),
            FromHex("b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                    "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                    "cc30c58179ec3e87c14c01d5c1f3434f1d87"));
}

TEST(HkdfTest, Rfc5869EmptySaltAndInfo) {
  EXPECT_EQ(Hkdf("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", "", "", 42),
            FromHex("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
                    "9d201395faa4b61a96c8"));
}

class StreamKeyTest : public ::testing::Test {
 protected:
  StreamKey Derive(Cipher cipher, std::uint16_t index, StreamDirection direction) const {
    return DeriveStreamKey(cipher, secret_, session_, index, connector_nonce_, listener_nonce_,
                           direction);
  }
  static std::vector<std::uint8_t> Bytes(const StreamKey& k) {
    return {k.bytes().begin(), k.bytes().end()};
  }

  Secret secret_ = RandomArray<kSecretSize>();
  SessionId session_ = RandomArray<kSessionIdSize>();
  Nonce connector_nonce_ = RandomArray<kNonceSize>();
  Nonce listener_nonce_ = RandomArray<kNonceSize>();
};

TEST_F(StreamKeyTest, KeysHaveTheCiphersSize) {
  EXPECT_EQ(Derive(Cipher::kAes128Gcm, 0, StreamDirection::kConnectorToListener).bytes().size(),
            16u);
  EXPECT_EQ(Derive(Cipher::kAes256Gcm, 0, StreamDirection::kConnectorToListener).bytes().size(),
            32u);
  EXPECT_EQ(
      Derive(Cipher::kChacha20Poly1305, 0, StreamDirection::kConnectorToListener).bytes().size(),
      32u);
}

TEST_F(StreamKeyTest, BothEndsDeriveTheSameKey) {
  EXPECT_EQ(Bytes(Derive(Cipher::kAes128Gcm, 3, StreamDirection::kListenerToConnector)),
            Bytes(Derive(Cipher::kAes128Gcm, 3, StreamDirection::kListenerToConnector)));
}

TEST_F(StreamKeyTest, EveryInputChangesTheKey) {
  const auto base = Bytes(Derive(Cipher::kAes256Gcm, 1, StreamDirection::kConnectorToListener));
  EXPECT_NE(base, Bytes(Derive(Cipher::kAes256Gcm, 2, StreamDirection::kConnectorToListener)));
  EXPECT_NE(base, Bytes(Derive(Cipher::kAes256Gcm, 1, StreamDirection::kListenerToConnector)));
  EXPECT_NE(base,
            Bytes(Derive(Cipher::kChacha20Poly1305, 1, StreamDirection::kConnectorToListener)));
  Nonce fresh = RandomArray<kNonceSize>();
  EXPECT_NE(base, Bytes(DeriveStreamKey(Cipher::kAes256Gcm, secret_, session_, 1, fresh,
                                        listener_nonce_, StreamDirection::kConnectorToListener)));
  EXPECT_NE(base, Bytes(DeriveStreamKey(Cipher::kAes256Gcm, secret_, session_, 1, connector_nonce_,
                                        fresh, StreamDirection::kConnectorToListener)));
  SessionId other_session = RandomArray<kSessionIdSize>();
  EXPECT_NE(base,
            Bytes(DeriveStreamKey(Cipher::kAes256Gcm, secret_, other_session, 1, connector_nonce_,
                                  listener_nonce_, StreamDirection::kConnectorToListener)));
  Secret other_secret = RandomArray<kSecretSize>();
  EXPECT_NE(base,
            Bytes(DeriveStreamKey(Cipher::kAes256Gcm, other_secret, session_, 1, connector_nonce_,
                                  listener_nonce_, StreamDirection::kConnectorToListener)));
}

TEST_F(StreamKeyTest, AKeyUpdateGivesANewKeyPerEpoch) {
  StreamKey key = Derive(Cipher::kAes128Gcm, 0, StreamDirection::kConnectorToListener);
  StreamKey one = key.Next(1);
  EXPECT_NE(Bytes(key), Bytes(one));
  EXPECT_NE(Bytes(one), Bytes(key.Next(2)));
  EXPECT_EQ(Bytes(one), Bytes(key.Next(1)));
  EXPECT_EQ(one.cipher(), Cipher::kAes128Gcm);
}

}  // namespace
}  // namespace braid
