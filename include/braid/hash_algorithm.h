#pragma once
/// The end-to-end hash (-E): which algorithm, its name as users and the
/// `*sum` tools spell it, and its digest length. Header-only vocabulary shared
/// by the command line, the wire codecs and security/file_digest.

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

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

constexpr std::size_t DigestSize(HashAlgorithm a) {
  switch (a) {
    case HashAlgorithm::kMd5:
      return 16;
    case HashAlgorithm::kSha256:
      return 32;
    case HashAlgorithm::kXxh128:
      return 16;
    case HashAlgorithm::kNone:
      break;
  }
  return 0;
}

/// Lower-case name: "md5", "sha256", "xxh128" ("none" for kNone).
constexpr std::string_view HashName(HashAlgorithm a) {
  switch (a) {
    case HashAlgorithm::kMd5:
      return "md5";
    case HashAlgorithm::kSha256:
      return "sha256";
    case HashAlgorithm::kXxh128:
      return "xxh128";
    case HashAlgorithm::kNone:
      break;
  }
  return "none";
}

/// Upper-case name for messages ("MD5 mismatch", "SHA256 verified").
constexpr std::string_view HashDisplayName(HashAlgorithm a) {
  switch (a) {
    case HashAlgorithm::kMd5:
      return "MD5";
    case HashAlgorithm::kSha256:
      return "SHA256";
    case HashAlgorithm::kXxh128:
      return "XXH128";
    case HashAlgorithm::kNone:
      break;
  }
  return "none";
}

/// The algorithm a user named, in any letter case; nullopt for anything else
/// (bbcp's "%md5", "md5=HEX", "a32", "c32" included).
inline std::optional<HashAlgorithm> ParseHashName(std::string_view text) {
  for (HashAlgorithm a : {HashAlgorithm::kMd5, HashAlgorithm::kSha256, HashAlgorithm::kXxh128}) {
    std::string_view name = HashName(a);
    if (text.size() != name.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < name.size() && same; ++i) {
      same = std::tolower(static_cast<unsigned char>(text[i])) == name[i];
    }
    if (same) return a;
  }
  return std::nullopt;
}

/// The algorithm a wire byte names; nullopt for a value no version defines.
constexpr std::optional<HashAlgorithm> HashAlgorithmFromWire(std::uint8_t v) {
  if (v > static_cast<std::uint8_t>(HashAlgorithm::kXxh128)) return std::nullopt;
  return static_cast<HashAlgorithm>(v);
}

}  // namespace braid
