#include "support/test_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "security/crypto/file_digest.h"

namespace braid::testing {

void WritePatternFile(const std::string& path, std::uint64_t size, std::uint64_t seed) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  std::vector<std::uint64_t> chunk(1 << 17);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  while (size > 0) {
    for (auto& w : chunk) {  // xorshift64: fast and never all-zero
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      w = x;
    }
    std::uint64_t n = std::min<std::uint64_t>(size, chunk.size() * sizeof(std::uint64_t));
    out.write(reinterpret_cast<const char*>(chunk.data()), static_cast<std::streamsize>(n));
    size -= n;
  }
}

bool SameContents(const std::string& a, const std::string& b, std::string* why) {
  std::ifstream fa(a, std::ios::binary);
  std::ifstream fb(b, std::ios::binary);
  if (!fa || !fb) {
    if (why) *why = !fa ? a + " unreadable" : b + " unreadable";
    return false;
  }
  std::vector<char> ba(1 << 20);
  std::vector<char> bb(1 << 20);
  std::uint64_t offset = 0;
  for (;;) {
    fa.read(ba.data(), static_cast<std::streamsize>(ba.size()));
    fb.read(bb.data(), static_cast<std::streamsize>(bb.size()));
    auto na = fa.gcount();
    auto nb = fb.gcount();
    auto n = std::min(na, nb);
    auto mismatch = std::mismatch(ba.begin(), ba.begin() + n, bb.begin());
    if (mismatch.first != ba.begin() + n) {
      if (why)
        *why = "differ at byte " +
               std::to_string(offset + static_cast<std::uint64_t>(mismatch.first - ba.begin()));
      return false;
    }
    if (na != nb) {
      if (why)
        *why =
            "lengths differ after byte " + std::to_string(offset + static_cast<std::uint64_t>(n));
      return false;
    }
    if (na == 0) return true;
    offset += static_cast<std::uint64_t>(na);
  }
}

std::string FileMd5(const std::string& path) { return FileDigestHex(path, HashAlgorithm::kMd5); }

std::string FileDigestHex(const std::string& path, HashAlgorithm algorithm) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  FileDigest digest(algorithm);
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    digest.Update(buf.data(), static_cast<std::size_t>(in.gcount()));
  }
  return ToHex(digest.Finish());
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::string ListDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace braid::testing
