// The frame opener: header, payload and tag of a sealed data frame straight
// from TCP. Two properties on every input:
//  - raw: the input taken as header, payload and tag never opens (nobody can
//    make the tag without the key), for every cipher;
//  - tampered: two genuine frames with bytes XORed into header, payload or
//    tag, or the two swapped, open exactly when nothing was changed, and then
//    give back the plaintext.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "fuzz_support.h"
#include "security/crypto/frame_seal.h"

using namespace braid;

namespace {

constexpr Secret kSecret = {9, 8, 7, 6, 5, 4, 3, 2, 1};
constexpr SessionId kSession = {0xa0, 0xa1, 0xa2};
constexpr Nonce kNonceC = {0xc0, 0xc1};
constexpr Nonce kNonceL = {0xd0, 0xd1};
constexpr std::size_t kHeaderSize = 40;  // a data frame's header, the AAD

StreamKey Key(Cipher cipher) {
  return DeriveStreamKey(cipher, kSecret, kSession, 0, kNonceC, kNonceL,
                         StreamDirection::kConnectorToListener);
}

struct Frame {
  std::vector<std::uint8_t> header;
  std::vector<std::uint8_t> payload;
  std::array<std::uint8_t, kSealTagSize> tag{};
};

void Raw(std::span<const std::uint8_t> data, Cipher cipher) {
  Frame f;
  const std::size_t header = std::min(data.size(), kHeaderSize);
  f.header.assign(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(header));
  auto rest = data.subspan(header);
  const std::size_t tag = std::min(rest.size(), kSealTagSize);
  std::copy(rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(tag), f.tag.begin());
  rest = rest.subspan(tag);
  f.payload.assign(rest.begin(), rest.end());
  FrameOpener opener(Key(cipher));
  BRAID_FUZZ_CHECK(!opener.Open(f.header, f.payload, f.tag));
  BRAID_FUZZ_CHECK(std::all_of(f.payload.begin(), f.payload.end(), [](auto b) { return b == 0; }));
}

/// XORs the input's next bytes into `bytes`; returns whether anything changed.
bool Tamper(std::span<std::uint8_t> bytes, std::span<const std::uint8_t>& input) {
  bool changed = false;
  for (std::uint8_t& b : bytes) {
    if (input.empty()) break;
    changed |= input.front() != 0;
    b ^= input.front();
    input = input.subspan(1);
  }
  return changed;
}

void Tampered(std::span<const std::uint8_t> data) {
  if (data.empty()) return;
  const auto cipher = static_cast<Cipher>(1 + data[0] % 3);
  std::span<const std::uint8_t> input = data.subspan(1);
  FrameSealer sealer(Key(cipher));
  std::array<Frame, 2> frames;
  std::vector<std::uint8_t> plain[2];
  for (std::size_t i = 0; i < 2; ++i) {
    frames[i].header.assign(kHeaderSize, static_cast<std::uint8_t>(0x10 + i));
    plain[i].assign(24 + 8 * i, static_cast<std::uint8_t>(0x50 + i));
    frames[i].payload = plain[i];
    sealer.Seal(frames[i].header, frames[i].payload, frames[i].tag);
  }
  bool changed = false;
  const bool swap = !input.empty() && (input.front() & 1) != 0;
  if (!input.empty()) input = input.subspan(1);
  if (swap) std::swap(frames[0], frames[1]);
  changed |= swap;
  for (Frame& f : frames) {
    changed |= Tamper(f.header, input);
    changed |= Tamper(f.payload, input);
    changed |= Tamper(f.tag, input);
  }
  FrameOpener opener(Key(cipher));
  const bool ok = opener.Open(frames[0].header, frames[0].payload, frames[0].tag) &&
                  opener.Open(frames[1].header, frames[1].payload, frames[1].tag);
  BRAID_FUZZ_CHECK(ok == !changed);
  if (ok) BRAID_FUZZ_CHECK(frames[0].payload == plain[0] && frames[1].payload == plain[1]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  for (Cipher c : {Cipher::kAes128Gcm, Cipher::kAes256Gcm, Cipher::kChacha20Poly1305}) {
    Raw(fuzz::Bytes(data, size), c);
  }
  Tampered(fuzz::Bytes(data, size));
  return 0;
}
