#pragma once
/// Files for integration tests: deterministic pseudo-random content, whole-file
/// reads and writes, trees built and compared, temporary directories, byte
/// comparison and digests, without shelling out. The one place for these: a
/// test that needs another such helper adds it here.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "braid/hash_algorithm.h"

namespace braid::testing {

/// Writes `size` bytes generated from `seed` (xorshift64: fast, not
/// cryptographic; the same seed gives the same bytes at any size). Throws
/// std::runtime_error naming the path when it cannot be written.
void WritePatternFile(const std::string& path, std::uint64_t size, std::uint64_t seed);
/// Replaces the file with `text`.
void WriteText(const std::string& path, const std::string& text);
/// The whole file; "" when it cannot be read.
std::string ReadWhole(const std::string& path);
/// Bytes of the file at `path` (following links), or 0 when it does not exist.
std::uint64_t FileSize(const std::string& path);
/// True when something (a dangling link too) is at `path`.
bool Exists(const std::string& path);

/// True when both files exist and hold the same bytes; `why` says how they differ.
bool SameContents(const std::string& a, const std::string& b, std::string* why = nullptr);
/// Lower-case hex MD5 of a file, as md5sum prints it; "" if unreadable.
std::string FileMd5(const std::string& path);
/// Lower-case hex digest of a file by `algorithm` (braid's own FileDigest);
/// "" if unreadable. Tests compare it with the `*sum` tools where they exist.
std::string FileDigestHex(const std::string& path, HashAlgorithm algorithm);
/// Names in `dir` (not recursive), sorted; for checking nothing was left behind.
std::string ListDir(const std::string& dir);

/// One entry of a tree MakeTree builds, by path relative to its root; made
/// with TreeFile, TreeDirectory or TreeLink.
struct TreeEntry {
  enum class Kind { kFile, kDirectory, kLink } kind = Kind::kFile;
  std::string path;
  std::uint64_t size = 0;  ///< of a file
  std::string link_to;     ///< of a link (not resolved)
};
/// A regular file of `size` pattern bytes; the n-th file of a tree (from 1) has seed n.
inline TreeEntry TreeFile(std::string path, std::uint64_t size) {
  return {TreeEntry::Kind::kFile, std::move(path), size, ""};
}
/// A directory, made with its parents (a file's parents are made anyway).
inline TreeEntry TreeDirectory(std::string path) {
  return {TreeEntry::Kind::kDirectory, std::move(path), 0, ""};
}
/// A symbolic link at `path` to `to`.
inline TreeEntry TreeLink(std::string path, std::string to) {
  return {TreeEntry::Kind::kLink, std::move(path), 0, std::move(to)};
}
/// Creates `root` and everything in `entries` under it, in order; returns `root`.
std::string MakeTree(const std::string& root, const std::vector<TreeEntry>& entries);
/// "" when the trees under `a` and `b` hold the same paths, each of the same
/// type (directory, file, link; links never followed), files with the same
/// bytes and links with the same target; else one line per difference.
std::string TreeDifferences(const std::string& a, const std::string& b);

/// A new empty directory under $TMPDIR (or /tmp) named after `stem`; throws
/// std::runtime_error when it cannot be made.
std::string MakeTempDir(const std::string& stem);
/// A MakeTempDir removed with everything in it when it goes out of scope.
class ScopedTempDir {
 public:
  explicit ScopedTempDir(const std::string& stem) : path_(MakeTempDir(stem)) {}
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace braid::testing
