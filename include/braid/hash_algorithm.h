#pragma once
/// The end-to-end hash (-E): which algorithm, its name as users and the
/// `*sum` tools spell it, and its digest length. Header-only vocabulary shared
/// by the command line, the wire codecs and security/file_digest.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

#include "braid/name_match.h"

namespace braid {

/// The values travel on the wire (TransferParams, FileDone): never renumber.
enum class HashAlgorithm : std::uint8_t {
  kNone = 0,
  kMd5 = 1,     ///< OpenSSL EVP; what md5sum prints
  kSha256 = 2,  ///< OpenSSL EVP (SHA-NI where the CPU has it); what sha256sum prints
  kXxh128 = 3,  ///< libxxhash XXH3-128, canonical (big-endian) form; what xxh128sum prints
};

/// The longest digest of any algorithm (SHA-256).
constexpr std::size_t kMaxDigestSize = 32;

/// What -E accepts, for error messages.
constexpr std::string_view kHashChoices = "md5, sha256 or xxh128";

/// One row per algorithm, in enum order: the name -E takes and messages show, the digest size.
struct HashInfo {
  std::string_view name;     ///< lower case: "md5", "sha256", "xxh128" ("none" for kNone)
  std::string_view display;  ///< upper case for messages ("MD5 mismatch", "SHA256 verified")
  std::size_t digest_size;
};
constexpr HashInfo kHashInfo[] = {
    {"none", "none", 0}, {"md5", "MD5", 16}, {"sha256", "SHA256", 32}, {"xxh128", "XXH128", 16}};
static_assert(std::size(kHashInfo) == static_cast<std::size_t>(HashAlgorithm::kXxh128) + 1);
/// A value outside the enum (none decodes from the wire) reads as kNone, as before.
constexpr const HashInfo& InfoOf(HashAlgorithm a) {
  const auto i = static_cast<std::size_t>(a);
  return i < std::size(kHashInfo) ? kHashInfo[i] : kHashInfo[0];
}

constexpr std::size_t DigestSize(HashAlgorithm a) { return InfoOf(a).digest_size; }
constexpr std::string_view HashName(HashAlgorithm a) { return InfoOf(a).name; }
constexpr std::string_view HashDisplayName(HashAlgorithm a) { return InfoOf(a).display; }

/// The algorithm a user named, in any letter case; nullopt for anything else
/// (bbcp's "%md5", "md5=HEX", "a32", "c32" included).
inline std::optional<HashAlgorithm> ParseHashName(std::string_view text) {
  for (HashAlgorithm a : {HashAlgorithm::kMd5, HashAlgorithm::kSha256, HashAlgorithm::kXxh128}) {
    if (MatchesName(text, HashName(a))) return a;
  }
  return std::nullopt;
}

/// The algorithm a wire byte names; nullopt for a value no version defines.
constexpr std::optional<HashAlgorithm> HashAlgorithmFromWire(std::uint8_t v) {
  if (v > static_cast<std::uint8_t>(HashAlgorithm::kXxh128)) return std::nullopt;
  return static_cast<HashAlgorithm>(v);
}

}  // namespace braid
