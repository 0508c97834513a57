// FrameStream: the sealed and clear frame layouts on a data stream, over a
// socketpair in this process (both ends' keys from a real in-process handshake).

#include "transport/frame_stream.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <thread>
#include <vector>

#include "braid/error.h"
#include "security/crypto/payload_checksum.h"
#include "security/crypto/stream_handshake.h"

namespace braid {
namespace {

constexpr std::uint32_t kMax = 1u << 16;
constexpr std::uint16_t kIndex = 5;
using Bytes = std::vector<std::uint8_t>;

/// The two ends of one stream: `a` connected (the source), `b` listened (the
/// sink), and `wire`, a third descriptor that reads what `a` sends so a test
/// can look at it or alter it before handing it to `b` (through `tap`).
struct Pair {
  std::unique_ptr<DataSocket> a;  ///< sends to `tap_in`
  std::unique_ptr<DataSocket> b;  ///< reads from `tap_out`
  UniqueFd tap_in;                ///< what a sent
  UniqueFd tap_out;               ///< what b will read
};

Pair MakePair(Cipher cipher) {
  Secret secret = RandomArray<kSecretSize>();
  SessionId session = RandomArray<kSessionIdSize>();
  HandshakeConnector connector(secret, session, kIndex, RandomArray<kNonceSize>());
  HandshakeListener listener(secret, session, 8, RandomArray<kNonceSize>());
  Bytes challenge = listener.OnHello(connector.Hello());
  listener.OnProof(connector.OnChallenge(challenge));
  int one[2];
  int two[2];
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, one), 0);
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, two), 0);
  AuthenticatedStream out{kIndex, UniqueFd(one[0]), "source-host:1", std::nullopt};
  AuthenticatedStream in{kIndex, UniqueFd(two[0]), "source-host:1", std::nullopt};
  if (cipher != Cipher::kNone) {
    out.keys = connector.Keys(cipher);
    in.keys = listener.Keys(cipher);
  }
  return {std::make_unique<DataSocket>(std::move(out)), std::make_unique<DataSocket>(std::move(in)),
          UniqueFd(one[1]), UniqueFd(two[1])};
}

Bytes Take(int fd, std::size_t n) {
  Bytes out(n);
  EXPECT_EQ(::recv(fd, out.data(), n, MSG_WAITALL), static_cast<ssize_t>(n));
  return out;
}
void Give(int fd, const Bytes& bytes) {
  EXPECT_EQ(::send(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
}

Bytes Block(std::size_t n, std::uint8_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

FrameHeader DataHeader(std::uint32_t length, std::uint64_t offset) {
  return {.type = FrameType::kData, .length = length, .offset = offset, .raw_length = length};
}

class SealedFrameStreamTest : public ::testing::TestWithParam<Cipher> {};

TEST_P(SealedFrameStreamTest, FrameIsHeaderThenCiphertextThenTag) {
  Pair p = MakePair(GetParam());
  FrameStream source(*p.a, kMax);
  FrameStream sink(*p.b, kMax);
  ASSERT_TRUE(source.sealed());
  Bytes block = Block(1000, 1);
  const Bytes original = block;
  source.Send(DataHeader(1000, 4096), block);
  EXPECT_EQ(block, original);  // the caller's buffer stays clear
  Bytes wire = Take(p.tap_in.get(), kFrameHeaderSize + 1000 + kSealTagSize);
  FrameHeader h = DecodeFrameHeader({wire.data(), kFrameHeaderSize}, kMax);
  EXPECT_EQ(h.checksum, 0u);  // the tag authenticates instead
  EXPECT_EQ(h.length, 1000u);
  EXPECT_EQ(h.offset, 4096u);
  Bytes sent(wire.begin() + kFrameHeaderSize, wire.begin() + kFrameHeaderSize + 1000);
  EXPECT_NE(sent, original);
  Give(p.tap_out.get(), wire);
  std::optional<FrameHeader> got = sink.ReadHeader();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->offset, 4096u);
  Bytes out(1000);
  EXPECT_TRUE(sink.ReadPayload(out));
  EXPECT_EQ(out, original);
}

TEST_P(SealedFrameStreamTest, APayloadOfManyPiecesIsOneFrame) {
  Pair p = MakePair(GetParam());
  constexpr std::uint32_t kBlockMax = 1u << 20;
  FrameStream source(*p.a, kBlockMax);
  FrameStream sink(*p.b, kBlockMax);
  const std::size_t n = 2 * FrameStream::kSealPiece + 5;
  Bytes block = Block(n, 3);
  const Bytes original = block;
  const std::size_t on_wire = kFrameHeaderSize + n + kSealTagSize;
  Bytes wire;
  // The socket buffers hold less than the frame: read it while it is sent.
  std::thread tap([&] { wire = Take(p.tap_in.get(), on_wire); });
  source.Send(DataHeader(static_cast<std::uint32_t>(n), 0), block);
  tap.join();
  EXPECT_EQ(block, original);
  ASSERT_EQ(wire.size(), on_wire);
  std::thread give([&] { Give(p.tap_out.get(), wire); });
  std::optional<FrameHeader> got = sink.ReadHeader();
  Bytes out(n);
  bool opened = got && got->length == n && sink.ReadPayload(out);
  give.join();
  EXPECT_TRUE(opened);
  EXPECT_EQ(out, original);
}

TEST_P(SealedFrameStreamTest, FramesWithoutPayloadCarryATagToo) {
  Pair p = MakePair(GetParam());
  FrameStream source(*p.a, kMax);
  FrameStream sink(*p.b, kMax);
  source.Send(FrameHeader{.type = FrameType::kPassEnd, .file_id = 3}, {});
  Bytes wire = Take(p.tap_in.get(), kFrameHeaderSize + kSealTagSize);
  wire[kFrameHeaderSize + 3] ^= 0x10;  // the tag
  Give(p.tap_out.get(), wire);
  try {
    sink.ReadHeader();
    FAIL() << "an altered tag was accepted";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIntegrity);
    EXPECT_STREQ(e.what(),
                 "data stream 5 from source-host:1 failed authentication: the data was altered "
                 "on the way");
  }
}

/// Every byte of a sealed frame, flipped, makes it fail (or, in the header,
/// fail to decode): nothing altered is ever handed on.
TEST_P(SealedFrameStreamTest, EveryAlteredByteIsRefused) {
  Pair p = MakePair(GetParam());
  FrameStream source(*p.a, kMax);
  const Bytes block = Block(64, 9);
  source.Send(DataHeader(64, 0), block);
  const Bytes wire = Take(p.tap_in.get(), kFrameHeaderSize + 64 + kSealTagSize);
  constexpr std::size_t kLengthField = 12;  // 4 bytes: they say how much is read
  // A fresh pair (fresh keys) per byte keeps each opener unspent.
  for (std::size_t i = 0; i < wire.size(); ++i) {
    SCOPED_TRACE("byte " + std::to_string(i));
    Pair fresh = MakePair(GetParam());
    FrameStream s(*fresh.a, kMax);
    FrameStream r(*fresh.b, kMax);
    s.Send(DataHeader(64, 0), block);
    Bytes frame = Take(fresh.tap_in.get(), wire.size());
    frame[i] ^= 0x01;
    Give(fresh.tap_out.get(), frame);
    bool in_header = i < kFrameHeaderSize;
    bool refused = false;
    Bytes out(64);
    try {
      std::optional<FrameHeader> h = r.ReadHeader();
      refused = !h || h->length != 64 || !r.ReadPayload(out);
      EXPECT_TRUE(i >= kLengthField && i < kLengthField + 4 && refused)
          << "only an altered length is refused without a throw";
    } catch (const BraidError& e) {
      // A header that no longer decodes is a protocol error; everything else the tag refuses.
      refused =
          e.code() == ErrorCode::kIntegrity || (in_header && e.code() == ErrorCode::kProtocol);
      if (!in_header) {
        EXPECT_EQ(e.code(), ErrorCode::kIntegrity) << e.what();
      }
    }
    EXPECT_TRUE(refused);
  }
}

TEST_P(SealedFrameStreamTest, RefusedHeaderIsOpenedFirstSoTamperingIsNamed) {
  Pair p = MakePair(GetParam());
  FrameStream source(*p.a, kMax);
  FrameStream sink(*p.b, kMax);
  const BraidError refusal(ErrorCode::kProtocol, "protocol error: block past the file's end");
  // A genuine frame the sink refuses: the refusal is the peer's own error.
  source.Send(DataHeader(32, 1000), Block(32, 1));
  Give(p.tap_out.get(), Take(p.tap_in.get(), kFrameHeaderSize + 32 + kSealTagSize));
  ASSERT_TRUE(sink.ReadHeader());
  try {
    sink.Refuse(refusal);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol) << e.what();
  }
  // Its offset altered on the way: the same refusal now names the tampering.
  Pair q = MakePair(GetParam());
  FrameStream s(*q.a, kMax);
  FrameStream r(*q.b, kMax);
  s.Send(DataHeader(32, 1000), Block(32, 1));
  Bytes frame = Take(q.tap_in.get(), kFrameHeaderSize + 32 + kSealTagSize);
  frame[16] ^= 0x80;  // the offset's top byte
  Give(q.tap_out.get(), frame);
  ASSERT_TRUE(r.ReadHeader());
  try {
    r.Refuse(refusal);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIntegrity) << e.what();
    EXPECT_NE(std::string(e.what()).find("data stream 5 from source-host:1 failed authentication"),
              std::string::npos)
        << e.what();
  }
}

TEST_P(SealedFrameStreamTest, ReplayedFrameIsRefused) {
  Pair p = MakePair(GetParam());
  FrameStream source(*p.a, kMax);
  FrameStream sink(*p.b, kMax);
  const Bytes block = Block(100, 3);
  source.Send(DataHeader(100, 0), block);
  Bytes first = Take(p.tap_in.get(), kFrameHeaderSize + 100 + kSealTagSize);
  Give(p.tap_out.get(), first);
  Give(p.tap_out.get(), first);  // the same genuine frame again
  Bytes out(100);
  ASSERT_TRUE(sink.ReadHeader());
  EXPECT_TRUE(sink.ReadPayload(out));
  ASSERT_TRUE(sink.ReadHeader());
  try {
    (void)sink.ReadPayload(out);
    FAIL() << "a replayed frame was accepted";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kIntegrity);
  }
  EXPECT_EQ(out, Bytes(100, 0)) << "nothing of a refused frame is handed on";
}

TEST_P(SealedFrameStreamTest, BothDirectionsHaveTheirOwnKey) {
  Pair p = MakePair(GetParam());
  FrameStream source(*p.a, kMax);
  FrameStream sink(*p.b, kMax);
  // What the sink sends (a resend list) does not open as the source's own.
  Bytes list = Block(kResendRangeSize, 4);
  sink.Send(FrameHeader{.type = FrameType::kResend, .offset = 1}, list);
  Bytes wire = Take(p.tap_out.get(), kFrameHeaderSize + list.size() + kSealTagSize);
  Give(p.tap_in.get(), wire);
  std::optional<FrameHeader> h = source.ReadHeader();
  ASSERT_TRUE(h);
  EXPECT_EQ(h->type, FrameType::kResend);
  Bytes out(list.size());
  EXPECT_TRUE(source.ReadPayload(out));
  EXPECT_EQ(out, list);
  // Reflected back to the sink, the same bytes fail: it opens with the other key.
  Give(p.tap_out.get(), wire);
  ASSERT_TRUE(sink.ReadHeader());
  EXPECT_THROW((void)sink.ReadPayload(out), BraidError);
}

INSTANTIATE_TEST_SUITE_P(Ciphers, SealedFrameStreamTest,
                         ::testing::Values(Cipher::kAes128Gcm, Cipher::kAes256Gcm,
                                           Cipher::kChacha20Poly1305));

TEST(ClearFrameStreamTest, FrameIsHeaderWithChecksumThenPayload) {
  Pair p = MakePair(Cipher::kNone);
  FrameStream source(*p.a, kMax);
  FrameStream sink(*p.b, kMax);
  EXPECT_FALSE(source.sealed());
  const Bytes block = Block(500, 2);
  source.Send(DataHeader(500, 0), block);
  Bytes wire = Take(p.tap_in.get(), kFrameHeaderSize + 500);
  FrameHeader h = DecodeFrameHeader({wire.data(), kFrameHeaderSize}, kMax);
  EXPECT_EQ(h.checksum, PayloadChecksum(block));
  EXPECT_TRUE(std::equal(block.begin(), block.end(), wire.begin() + kFrameHeaderSize));
  wire.back() ^= 0x01;
  Give(p.tap_out.get(), wire);
  ASSERT_TRUE(sink.ReadHeader());
  Bytes out(500);
  EXPECT_FALSE(sink.ReadPayload(out));  // the caller names what failed
}

TEST(ClearFrameStreamTest, CleanEndBeforeAFrameIsNotAnError) {
  Pair p = MakePair(Cipher::kAes128Gcm);
  FrameStream sink(*p.b, kMax);
  p.tap_out.Reset();
  EXPECT_FALSE(sink.ReadHeader().has_value());
}

}  // namespace
}  // namespace braid
