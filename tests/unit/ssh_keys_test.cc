#include <gtest/gtest.h>

#include <array>
#include <string>

#include "security/ssh/host_key_check.h"
#include "security/ssh/ssh_auth.h"

namespace braid {
namespace {

TEST(KnownHostsNameTest, PortFormsMatchSsh) {
  EXPECT_EQ(KnownHostsName("dtn.example.org", 22), "dtn.example.org");
  EXPECT_EQ(KnownHostsName("dtn.example.org", 2222), "[dtn.example.org]:2222");
  EXPECT_EQ(KnownHostsName("::1", 22), "::1");
  EXPECT_EQ(KnownHostsName("::1", 2222), "[::1]:2222");
}

TEST(FingerprintTest, Sha256IsUnpaddedBase64) {
  std::array<unsigned char, 32> digest{};
  // base64 of 32 zero bytes is 43 'A's and one '='; OpenSSH drops the '='.
  EXPECT_EQ(Sha256Fingerprint(digest), "SHA256:" + std::string(43, 'A'));
  digest.fill(0xff);
  EXPECT_EQ(Sha256Fingerprint(digest), "SHA256:" + std::string(42, '/') + "8");
}

// Openings of keys from `ssh-keygen -t ed25519` without and with a passphrase (truncated).
constexpr const char* kPlainOpenSshKey =
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACDYnN7Q8m0l3B0Z3ymzJ5yIgk3Nx0Wj+2uG9NnJ3Q3uYwAAAJg0U0xgNFNM\n"
    "-----END OPENSSH PRIVATE KEY-----\n";
constexpr const char* kEncryptedOpenSshKey =
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAACmFlczI1Ni1jdHIAAAAGYmNyeXB0AAAAGAAAABAv2nL0pA\n"
    "-----END OPENSSH PRIVATE KEY-----\n";

TEST(EncryptedKeyTest, OpenSshFormat) {
  EXPECT_FALSE(IsEncryptedPrivateKey(kPlainOpenSshKey));
  EXPECT_TRUE(IsEncryptedPrivateKey(kEncryptedOpenSshKey));
}

TEST(EncryptedKeyTest, PemFormats) {
  EXPECT_TRUE(IsEncryptedPrivateKey(
      "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00\n"));
  EXPECT_TRUE(IsEncryptedPrivateKey("-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n"));
  EXPECT_FALSE(IsEncryptedPrivateKey("-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n"));
}

TEST(EncryptedKeyTest, GarbageIsNotEncrypted) {
  EXPECT_FALSE(IsEncryptedPrivateKey(""));
  EXPECT_FALSE(IsEncryptedPrivateKey("-----BEGIN OPENSSH PRIVATE KEY-----\n!!!!\n"));
  EXPECT_FALSE(IsEncryptedPrivateKey("-----BEGIN OPENSSH PRIVATE KEY-----"));
  // Cipher-name length pointing past the decoded bytes.
  EXPECT_FALSE(
      IsEncryptedPrivateKey("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA/////w==\n"));
}

}  // namespace
}  // namespace braid
