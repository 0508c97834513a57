#include "source/file_digests.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace braid {
namespace {

DigestValue Digest(std::uint8_t size, std::uint8_t fill) {
  DigestValue d;
  d.size = size;
  for (std::uint8_t i = 0; i < size; ++i) d.bytes[i] = static_cast<std::uint8_t>(fill + i);
  return d;
}

TEST(FileDigestsTest, GivesBackEachFilesDigestOnceItIsPut) {
  for (HashAlgorithm algorithm : {HashAlgorithm::kMd5, HashAlgorithm::kSha256}) {
    const auto size = static_cast<std::uint8_t>(InfoOf(algorithm).digest_size);
    FileDigests digests;
    digests.Reset(5, algorithm);
    EXPECT_FALSE(digests.Get(3));
    digests.Put(3, Digest(size, 30));
    digests.Put(0, Digest(size, 7));
    digests.Put(4, Digest(size, 40));
    ASSERT_TRUE(digests.Get(3));
    EXPECT_EQ(*digests.Get(3), Digest(size, 30));
    EXPECT_EQ(*digests.Get(0), Digest(size, 7));
    EXPECT_EQ(*digests.Get(4), Digest(size, 40));
    EXPECT_FALSE(digests.Get(1));
    // A later put replaces the earlier.
    digests.Put(3, Digest(size, 99));
    EXPECT_EQ(*digests.Get(3), Digest(size, 99));
  }
}

TEST(FileDigestsTest, AnIdPastTheListIsNotKnownAndCannotBePut) {
  FileDigests digests;
  digests.Reset(2, HashAlgorithm::kMd5);
  EXPECT_FALSE(digests.Get(2));
  EXPECT_FALSE(digests.Get(0xffffffffu));
  EXPECT_THROW(digests.Put(2, Digest(16, 1)), std::logic_error);
  // A digest of another algorithm's length is a caller's bug too.
  EXPECT_THROW(digests.Put(0, Digest(32, 1)), std::logic_error);
}

TEST(FileDigestsTest, WithoutAnAlgorithmNothingIsKept) {
  FileDigests digests;
  digests.Reset(1000, HashAlgorithm::kNone);
  EXPECT_FALSE(digests.Get(0));
  EXPECT_THROW(digests.Put(0, Digest(16, 1)), std::logic_error);
}

}  // namespace
}  // namespace braid
