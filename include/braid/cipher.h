#pragma once
/// The data streams' AEAD (--cipher): which one, its name as users type it,
/// and its key size. Header-only vocabulary shared by the command line, the
/// wire codecs and security/crypto's frame sealing.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

#include "braid/name_match.h"

namespace braid {

/// The values travel on the wire: never renumber.
enum class Cipher : std::uint8_t {
  kNone = 0,              ///< clear frames with an XXH3-64 checksum (closed networks)
  kAes128Gcm = 1,         ///< the default: TLS 1.3's mandatory suite, AES-NI fast
  kAes256Gcm = 2,         ///< for policies that ask for 256-bit keys
  kChacha20Poly1305 = 3,  ///< for CPUs without AES instructions
};

/// What --cipher accepts, for error messages.
constexpr std::string_view kCipherChoices = "aes-128-gcm, aes-256-gcm, chacha20-poly1305 or none";

/// Every AEAD here has a 16-byte tag and a 96-bit nonce.
constexpr std::size_t kSealTagSize = 16;
constexpr std::size_t kSealNonceSize = 12;
constexpr std::size_t kMaxCipherKeySize = 32;

struct CipherInfo {
  std::string_view name;  ///< as --cipher takes it and messages show it
  std::size_t key_size;   ///< bytes; 0 for kNone
};
constexpr CipherInfo kCipherInfo[] = {
    {"none", 0}, {"aes-128-gcm", 16}, {"aes-256-gcm", 32}, {"chacha20-poly1305", 32}};
static_assert(std::size(kCipherInfo) == static_cast<std::size_t>(Cipher::kChacha20Poly1305) + 1);

constexpr const CipherInfo& InfoOf(Cipher c) {
  const auto i = static_cast<std::size_t>(c);
  return i < std::size(kCipherInfo) ? kCipherInfo[i] : kCipherInfo[0];
}
constexpr std::string_view CipherName(Cipher c) { return InfoOf(c).name; }
constexpr std::size_t CipherKeySize(Cipher c) { return InfoOf(c).key_size; }

/// The cipher a user named, in any letter case; nullopt for anything else.
inline std::optional<Cipher> ParseCipherName(std::string_view text) {
  for (std::size_t i = 0; i < std::size(kCipherInfo); ++i) {
    if (MatchesName(text, kCipherInfo[i].name)) return static_cast<Cipher>(i);
  }
  return std::nullopt;
}

/// The cipher a wire byte names; nullopt for a value no version defines.
constexpr std::optional<Cipher> CipherFromWire(std::uint8_t v) {
  if (v > static_cast<std::uint8_t>(Cipher::kChacha20Poly1305)) return std::nullopt;
  return static_cast<Cipher>(v);
}

}  // namespace braid
