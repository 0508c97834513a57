// The data-stream handshake: a listener parses the connector's HELLO and
// PROOF, a connector parses the listener's CHALLENGE, all straight from TCP.
// Two properties on every input:
//  - raw: the input used as HELLO / PROOF / CHALLENGE never authenticates
//    (nobody can produce the MAC without the secret) and fails only with kProtocol;
//  - tampered: a genuine exchange with bytes XORed, cut or appended at the
//    positions the input chooses succeeds exactly when nothing was changed.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "fuzz_support.h"
#include "security/crypto/stream_handshake.h"

using namespace braid;

namespace {

constexpr std::uint16_t kStreamLimit = 64;  // the protocol's most streams
constexpr Secret kSecret = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                            17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
constexpr SessionId kSession = {0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,
                                0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf};
constexpr Nonce kNonceC = {0xc0, 0xc1, 0xc2, 0xc3};
constexpr Nonce kNonceL = {0xd0, 0xd1, 0xd2, 0xd3};
// The raw half uses a secret nothing else here computes a MAC with: the
// tampered half compares genuine messages with memcmp, which libFuzzer
// watches and would feed back, handing the raw half a valid MAC (it did).
constexpr Secret kRawSecret = {0xee, 0x01, 0x77, 0x42};

/// Consumes input bytes; past the end it yields zeros (no change).
struct Input {
  std::span<const std::uint8_t> in;
  std::uint8_t Next() {
    if (in.empty()) return 0;
    const std::uint8_t b = in.front();
    in = in.subspan(1);
    return b;
  }
};

/// Applies the input's edit to one message; returns whether it changed.
bool Tamper(std::vector<std::uint8_t>& msg, Input& input) {
  const std::vector<std::uint8_t> before = msg;
  for (std::uint8_t& b : msg) b ^= input.Next();
  const std::size_t cut = std::min<std::size_t>(input.Next(), msg.size());
  msg.resize(msg.size() - cut);
  for (std::uint8_t extra = input.Next(); extra > 0; --extra) msg.push_back(input.Next());
  return msg != before;
}

void Raw(std::span<const std::uint8_t> data) {
  const auto hello = data.first(std::min(data.size(), kHelloSize));
  const auto rest = data.subspan(hello.size());
  const auto proof = rest.first(std::min(rest.size(), kProofSize));
  HandshakeListener listener(kRawSecret, kSession, kStreamLimit, kNonceL);
  fuzz::Accepts(ErrorCode::kProtocol, [&] { listener.OnHello(hello); });
  BRAID_FUZZ_CHECK(!fuzz::Accepts(ErrorCode::kProtocol, [&] { listener.OnProof(proof); }));
  HandshakeConnector connector(kRawSecret, kSession, 0, kNonceC);
  BRAID_FUZZ_CHECK(!fuzz::Accepts(ErrorCode::kProtocol, [&] { connector.OnChallenge(data); }));
}

void Tampered(std::span<const std::uint8_t> data) {
  Input input{data};
  const std::uint16_t limit = static_cast<std::uint16_t>(1 + input.Next() % kStreamLimit);
  const std::uint16_t index = static_cast<std::uint16_t>(input.Next() % limit);
  HandshakeConnector connector(kSecret, kSession, index, kNonceC);
  HandshakeListener listener(kSecret, kSession, limit, kNonceL);

  std::vector<std::uint8_t> hello = connector.Hello();
  bool changed = Tamper(hello, input);
  std::vector<std::uint8_t> challenge;
  std::vector<std::uint8_t> proof;
  std::uint16_t accepted = 0;
  const bool ok = fuzz::Accepts(ErrorCode::kProtocol, [&] {
    challenge = listener.OnHello(hello);
    changed |= Tamper(challenge, input);
    proof = connector.OnChallenge(challenge);
    changed |= Tamper(proof, input);
    accepted = listener.OnProof(proof);
  });
  BRAID_FUZZ_CHECK(ok == !changed);
  if (ok) BRAID_FUZZ_CHECK(accepted == index);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Raw(fuzz::Bytes(data, size));
  Tampered(fuzz::Bytes(data, size));
  return 0;
}
