// The digests -e / -E print at the end, kept packed: every file comes back
// as it was added, in order, across blocks.

#include "agent/report/digest_store.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace braid {
namespace {

struct Seen {
  HashAlgorithm algorithm;
  std::vector<std::uint8_t> digest;
  std::string path;
};

std::vector<Seen> All(const DigestStore& store) {
  std::vector<Seen> seen;
  store.ForEach([&](HashAlgorithm a, std::span<const std::uint8_t> d, std::string_view p) {
    seen.push_back({a, {d.begin(), d.end()}, std::string(p)});
  });
  return seen;
}

TEST(DigestStoreTest, GivesBackEveryFileInOrder) {
  DigestStore store;
  EXPECT_TRUE(store.empty());
  const std::vector<std::uint8_t> md5(16, 0xab);
  const std::vector<std::uint8_t> sha(32, 0x01);
  store.Add(HashAlgorithm::kMd5, md5, "/data/a b");
  store.Add(HashAlgorithm::kSha256, sha, "");
  store.Add(HashAlgorithm::kMd5, {}, std::string(70000, 'x'));  // a path past 65,535 bytes
  std::vector<Seen> seen = All(store);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(store.size(), 3u);
  EXPECT_EQ(seen[0].algorithm, HashAlgorithm::kMd5);
  EXPECT_EQ(seen[0].digest, md5);
  EXPECT_EQ(seen[0].path, "/data/a b");
  EXPECT_EQ(seen[1].algorithm, HashAlgorithm::kSha256);
  EXPECT_EQ(seen[1].digest, sha);
  EXPECT_EQ(seen[1].path, "");
  EXPECT_TRUE(seen[2].digest.empty());
  EXPECT_EQ(seen[2].path, std::string(70000, 'x'));
}

TEST(DigestStoreTest, ManyFilesSpanBlocksAndKeepTheirOrder) {
  DigestStore store;
  constexpr int kFiles = 50000;  // about 2.5 MiB of records: three blocks
  for (int i = 0; i < kFiles; ++i) {
    std::vector<std::uint8_t> digest(16, static_cast<std::uint8_t>(i));
    store.Add(
        HashAlgorithm::kMd5, digest,
        "tree/d" + std::to_string(i / 1000) + "/f" + std::to_string(i) + std::string(10, 'p'));
  }
  std::vector<Seen> seen = All(store);
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kFiles));
  for (int i = 0; i < kFiles; i += 997) {
    EXPECT_EQ(seen[i].digest[15], static_cast<std::uint8_t>(i));
    EXPECT_EQ(seen[i].path, "tree/d" + std::to_string(i / 1000) + "/f" + std::to_string(i) +
                                std::string(10, 'p'));
  }
}

TEST(DigestStoreTest, RefusesWhatItCannotRecord) {
  DigestStore store;
  EXPECT_THROW(store.Add(HashAlgorithm::kMd5, std::vector<std::uint8_t>(256), "p"),
               std::length_error);
  EXPECT_TRUE(store.empty());
}

}  // namespace
}  // namespace braid
