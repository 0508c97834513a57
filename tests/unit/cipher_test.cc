#include "braid/cipher.h"

#include <gtest/gtest.h>

namespace braid {
namespace {

TEST(CipherTest, NamesRoundTripInAnyLetterCase) {
  for (Cipher c :
       {Cipher::kNone, Cipher::kAes128Gcm, Cipher::kAes256Gcm, Cipher::kChacha20Poly1305}) {
    EXPECT_EQ(ParseCipherName(CipherName(c)), c) << CipherName(c);
  }
  EXPECT_EQ(ParseCipherName("AES-128-GCM"), Cipher::kAes128Gcm);
  EXPECT_EQ(ParseCipherName("ChaCha20-Poly1305"), Cipher::kChacha20Poly1305);
  EXPECT_EQ(ParseCipherName("NONE"), Cipher::kNone);
}

TEST(CipherTest, NearMissesAreRefused) {
  for (const char* bad : {"", "aes128gcm", "aes-128", "aes-128-gcm ", "aes-192-gcm", "chacha20",
                          "aes-128-gcm\n", "nonex"}) {
    EXPECT_FALSE(ParseCipherName(bad)) << bad;
  }
}

TEST(CipherTest, KeySizesAndWireValues) {
  EXPECT_EQ(CipherKeySize(Cipher::kNone), 0u);
  EXPECT_EQ(CipherKeySize(Cipher::kAes128Gcm), 16u);
  EXPECT_EQ(CipherKeySize(Cipher::kAes256Gcm), 32u);
  EXPECT_EQ(CipherKeySize(Cipher::kChacha20Poly1305), 32u);
  EXPECT_EQ(CipherFromWire(1), Cipher::kAes128Gcm);
  EXPECT_EQ(CipherFromWire(3), Cipher::kChacha20Poly1305);
  EXPECT_FALSE(CipherFromWire(4));
  EXPECT_FALSE(CipherFromWire(255));
}

}  // namespace
}  // namespace braid
