#include "support/test_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "security/crypto/file_digest.h"

namespace braid::testing {
namespace fs = std::filesystem;

void WritePatternFile(const std::string& path, std::uint64_t size, std::uint64_t seed) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  // At most 1 MiB at a time, and no more than the file needs: a tree of
  // thousands of small files is written fast too.
  constexpr std::uint64_t kChunkWords = 1 << 17;
  std::vector<std::uint64_t> chunk(
      static_cast<std::size_t>(std::min(kChunkWords, (size + 7) / sizeof(std::uint64_t))));
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  while (size > 0 && out) {
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
  out.close();
  if (!out) throw std::runtime_error("cannot write test file " + path);
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string ReadWhole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

std::uint64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
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

std::string ListDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

std::string MakeTree(const std::string& root, const std::vector<TreeEntry>& entries) {
  fs::create_directories(root);
  std::uint64_t seed = 0;
  for (const TreeEntry& e : entries) {
    const fs::path path = fs::path(root) / e.path;
    if (e.kind == TreeEntry::Kind::kDirectory) {
      fs::create_directories(path);
      continue;
    }
    fs::create_directories(path.parent_path());
    if (e.kind == TreeEntry::Kind::kLink) {
      fs::create_symlink(e.link_to, path);
    } else {
      WritePatternFile(path.string(), e.size, ++seed);
    }
  }
  return root;
}

namespace {

/// Path relative to `root` -> "d", "l:<target>" or "f" for everything under it.
std::map<std::string, std::string> Listing(const std::string& root, std::string& errors) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    fs::file_status st = fs::symlink_status(p, ec);
    std::string& what = out[fs::relative(p, root, ec).string()];
    what = fs::is_symlink(st)        ? "l:" + fs::read_symlink(p, ec).string()
           : fs::is_directory(st)    ? "d"
           : fs::is_regular_file(st) ? "f"
                                     : "other";
  }
  if (ec) errors += "cannot list " + root + ": " + ec.message() + "\n";
  return out;
}

}  // namespace

std::string TreeDifferences(const std::string& a, const std::string& b) {
  std::string out;
  std::map<std::string, std::string> in_a = Listing(a, out);
  std::map<std::string, std::string> in_b = Listing(b, out);
  for (const auto& [rel, what] : in_a) {
    auto it = in_b.find(rel);
    if (it == in_b.end()) {
      out += "missing in " + b + ": " + rel + "\n";
    } else if (it->second != what) {
      out += rel + ": " + what + " in " + a + ", " + it->second + " in " + b + "\n";
    } else if (what == "f") {
      std::string why;
      if (!SameContents(a + "/" + rel, b + "/" + rel, &why)) out += rel + ": " + why + "\n";
    }
  }
  for (const auto& [rel, what] : in_b) {
    if (in_a.count(rel) == 0) out += "extra in " + b + ": " + rel + "\n";
  }
  return out;
}

std::string MakeTempDir(const std::string& stem) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/" + stem + "-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot make a temporary directory " + pattern);
  }
  return pattern;
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace braid::testing
