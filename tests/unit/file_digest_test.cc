// FileDigest against published vectors (RFC 1321, FIPS 180-2) and the values
// xxh128sum 0.8.1 prints, fed whole and in odd pieces; and the names -E takes.

#include "security/crypto/file_digest.h"

#include <gtest/gtest.h>

#include <string>

namespace braid {
namespace {

std::string Hex(HashAlgorithm a, const std::string& data, std::size_t piece = 0) {
  FileDigest d(a);
  if (piece == 0) {
    d.Update(data.data(), data.size());
  } else {
    for (std::size_t at = 0; at < data.size(); at += piece) {
      d.Update(data.data() + at, std::min(piece, data.size() - at));
    }
  }
  DigestValue v = d.Finish();
  EXPECT_EQ(v.size, DigestSize(a));
  return ToHex(v);
}

struct Vector {
  HashAlgorithm algorithm;
  std::string input;
  const char* hex;
};

const std::string kMillionA(1000000, 'a');

TEST(FileDigestTest, KnownVectors) {
  const Vector vectors[] = {
      {HashAlgorithm::kMd5, "", "d41d8cd98f00b204e9800998ecf8427e"},
      {HashAlgorithm::kMd5, "abc", "900150983cd24fb0d6963f7d28e17f72"},
      {HashAlgorithm::kMd5, kMillionA, "7707d6ae4e027c70eea2a935c2296f21"},
      {HashAlgorithm::kSha256, "",
       "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {HashAlgorithm::kSha256, "abc",
       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {HashAlgorithm::kSha256, kMillionA,
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
      {HashAlgorithm::kXxh128, "", "99aa06d3014798d86001c324468d497f"},
      {HashAlgorithm::kXxh128, "abc", "06b05ab6733a618578af5f94892f3950"},
      {HashAlgorithm::kXxh128, kMillionA, "a545df8e384a9579b1fd6fae5285c4eb"},
  };
  for (const Vector& v : vectors) {
    SCOPED_TRACE(std::string(HashName(v.algorithm)) + " of " + std::to_string(v.input.size()));
    EXPECT_EQ(Hex(v.algorithm, v.input), v.hex);
    // Blocks arrive in pieces of any size; the streaming value must not change.
    EXPECT_EQ(Hex(v.algorithm, v.input, 1), v.hex);
    EXPECT_EQ(Hex(v.algorithm, v.input, 4099), v.hex);
  }
}

TEST(FileDigestTest, FinishStartsOver) {
  for (HashAlgorithm a : {HashAlgorithm::kMd5, HashAlgorithm::kSha256, HashAlgorithm::kXxh128}) {
    FileDigest d(a);
    d.Update("xyz", 3);
    (void)d.Finish();
    d.Update("abc", 3);
    EXPECT_EQ(ToHex(d.Finish()), Hex(a, "abc")) << HashName(a);
    EXPECT_EQ(ToHex(d.Finish()), Hex(a, "")) << HashName(a);
  }
}

TEST(FileDigestTest, NamesAndWireValues) {
  EXPECT_EQ(ParseHashName("md5"), HashAlgorithm::kMd5);
  EXPECT_EQ(ParseHashName("Sha256"), HashAlgorithm::kSha256);
  EXPECT_EQ(ParseHashName("XXH128"), HashAlgorithm::kXxh128);
  for (const char* bad : {"", "none", "md", "md55", "%md5", "md5=00", "a32", "c32", "sha-256"}) {
    EXPECT_FALSE(ParseHashName(bad)) << bad;
  }
  for (std::uint8_t v = 0; v <= 3; ++v) {
    ASSERT_TRUE(HashAlgorithmFromWire(v));
    EXPECT_EQ(static_cast<std::uint8_t>(*HashAlgorithmFromWire(v)), v);
  }
  EXPECT_FALSE(HashAlgorithmFromWire(4));
  EXPECT_FALSE(HashAlgorithmFromWire(255));
  EXPECT_EQ(DigestSize(HashAlgorithm::kNone), 0u);
  EXPECT_EQ(DigestSize(HashAlgorithm::kSha256), kMaxDigestSize);
}

}  // namespace
}  // namespace braid
