#pragma once
/// Files for integration tests: deterministic pseudo-random content, byte
/// comparison and digests, without shelling out.

#include <cstdint>
#include <string>

#include "braid/hash_algorithm.h"

namespace braid::testing {

/// Writes `size` bytes generated from `seed` (fast, not cryptographic).
void WritePatternFile(const std::string& path, std::uint64_t size, std::uint64_t seed);
/// True when both files exist and hold the same bytes; `why` says how they differ.
bool SameContents(const std::string& a, const std::string& b, std::string* why = nullptr);
/// Lower-case hex MD5 of a file, as md5sum prints it; "" if unreadable.
std::string FileMd5(const std::string& path);
/// Lower-case hex digest of a file by `algorithm` (braid's own FileDigest);
/// "" if unreadable. Tests compare it with the `*sum` tools where they exist.
std::string FileDigestHex(const std::string& path, HashAlgorithm algorithm);
bool Exists(const std::string& path);
/// Names in `dir` (not recursive), sorted; for checking nothing was left behind.
std::string ListDir(const std::string& dir);
void WriteText(const std::string& path, const std::string& text);

}  // namespace braid::testing
