#pragma once
/// The one-time transfer credentials: a 256-bit secret that only ever crosses
/// the ssh channel, and a public session id that names the transfer on the wire.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace braid {

constexpr std::size_t kSecretSize = 32;
constexpr std::size_t kSessionIdSize = 16;
constexpr std::size_t kNonceSize = 32;

using Secret = std::array<std::uint8_t, kSecretSize>;
using SessionId = std::array<std::uint8_t, kSessionIdSize>;
using Nonce = std::array<std::uint8_t, kNonceSize>;

/// Fills `out` from OpenSSL's CSPRNG; aborts if the CSPRNG fails, since
/// continuing with predictable keys would be worse than stopping.
void FillRandom(std::span<std::uint8_t> out);

template <std::size_t N>
std::array<std::uint8_t, N> RandomArray() {
  std::array<std::uint8_t, N> a{};
  FillRandom(a);
  return a;
}

}  // namespace braid
