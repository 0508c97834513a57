#include "security/crypto/frame_seal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "braid/error.h"

namespace braid {
namespace {

using Tag = std::array<std::uint8_t, kSealTagSize>;

struct Sealed {
  std::vector<std::uint8_t> header;
  std::vector<std::uint8_t> payload;
  Tag tag{};
};

class FrameSealTest : public ::testing::TestWithParam<Cipher> {
 protected:
  StreamKey Key(std::uint16_t index = 0,
                StreamDirection direction = StreamDirection::kConnectorToListener) const {
    return DeriveStreamKey(GetParam(), secret_, session_, index, nonce_c_, nonce_l_, direction);
  }
  static Sealed Seal(FrameSealer& sealer, std::vector<std::uint8_t> payload,
                     std::vector<std::uint8_t> header = {1, 2, 3, 4, 5, 6, 7, 8}) {
    Sealed s{std::move(header), std::move(payload), {}};
    sealer.Seal(s.header, s.payload, s.tag);
    return s;
  }
  static bool Open(FrameOpener& opener, Sealed s, std::vector<std::uint8_t>* out = nullptr) {
    const bool ok = opener.Open(s.header, s.payload, s.tag);
    if (out != nullptr) *out = s.payload;
    return ok;
  }
  static std::vector<std::uint8_t> Pattern(std::size_t n) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i * 7 + 1);
    return v;
  }

  Secret secret_ = RandomArray<kSecretSize>();
  SessionId session_ = RandomArray<kSessionIdSize>();
  Nonce nonce_c_ = RandomArray<kNonceSize>();
  Nonce nonce_l_ = RandomArray<kNonceSize>();
};

TEST_P(FrameSealTest, SealingIntoAnotherBufferIsSealingInPlace) {
  FrameSealer in_place(Key());
  FrameSealer beside(Key());
  FrameOpener opener(Key());
  const std::vector<std::uint8_t> header = {9, 8, 7};
  for (std::size_t size : {0u, 33u, 70000u}) {
    const std::vector<std::uint8_t> plain = Pattern(size);
    Sealed a = Seal(in_place, plain, header);
    std::vector<std::uint8_t> out(size);
    Tag tag{};
    beside.Seal(header, plain, out, tag);
    EXPECT_EQ(out, a.payload) << size;
    EXPECT_EQ(tag, a.tag) << size;
    EXPECT_EQ(plain, Pattern(size)) << "the input stays as it was";
    std::vector<std::uint8_t> opened;
    ASSERT_TRUE(Open(opener, Sealed{header, out, tag}, &opened)) << size;
    EXPECT_EQ(opened, plain);
  }
}

TEST_P(FrameSealTest, SealingInPiecesIsSealingAtOnce) {
  FrameSealer whole(Key());
  FrameSealer pieces(Key());
  FrameOpener opener(Key());
  const std::vector<std::uint8_t> header = {4, 5, 6};
  for (std::size_t size : {0u, 1u, 4099u, 300000u}) {
    const std::vector<std::uint8_t> plain = Pattern(size);
    Sealed a = Seal(whole, plain, header);
    // Uneven pieces, none a multiple of the cipher's block.
    std::vector<std::uint8_t> out(size);
    pieces.Begin(header);
    std::size_t done = 0;
    for (std::size_t piece : {1u, 7u, 4091u, 131072u}) {
      std::size_t n = std::min(piece, size - done);
      pieces.Continue({plain.data() + done, n}, {out.data() + done, n});
      done += n;
    }
    pieces.Continue({plain.data() + done, size - done}, {out.data() + done, size - done});
    Tag tag{};
    pieces.End(tag);
    EXPECT_EQ(out, a.payload) << size;
    EXPECT_EQ(tag, a.tag) << size;
    EXPECT_EQ(pieces.frames(), whole.frames()) << "a frame in pieces counts once";
    std::vector<std::uint8_t> opened;
    ASSERT_TRUE(Open(opener, Sealed{header, out, tag}, &opened)) << size;
    EXPECT_EQ(opened, plain);
  }
}

TEST_P(FrameSealTest, ARoundTripGivesThePayloadBackAndHidesIt) {
  FrameSealer sealer(Key());
  FrameOpener opener(Key());
  for (std::size_t size : {0u, 1u, 15u, 16u, 17u, 4096u, 1u << 20}) {
    const std::vector<std::uint8_t> plain = Pattern(size);
    Sealed s = Seal(sealer, plain);
    if (size >= 16) {
      EXPECT_NE(s.payload, plain) << size;
    }
    std::vector<std::uint8_t> opened;
    ASSERT_TRUE(Open(opener, s, &opened)) << size;
    EXPECT_EQ(opened, plain) << size;
  }
  EXPECT_EQ(sealer.frames(), 7u);
  EXPECT_EQ(opener.frames(), 7u);
}

TEST_P(FrameSealTest, EverySingleBitFlipIsRejected) {
  FrameSealer sealer(Key());
  const Sealed good = Seal(sealer, Pattern(40));
  auto flips = [&](auto field) {
    const std::size_t bits = 8 * field(const_cast<Sealed&>(good)).size();
    for (std::size_t bit = 0; bit < bits; ++bit) {
      Sealed bad = good;
      field(bad)[bit / 8] ^= static_cast<std::uint8_t>(1u << (bit % 8));
      FrameOpener opener(Key());
      std::vector<std::uint8_t> out;
      EXPECT_FALSE(Open(opener, bad, &out)) << "bit " << bit;
      EXPECT_EQ(out, std::vector<std::uint8_t>(out.size(), 0)) << "not wiped, bit " << bit;
    }
  };
  flips([](Sealed& s) { return std::span<std::uint8_t>(s.header); });
  flips([](Sealed& s) { return std::span<std::uint8_t>(s.payload); });
  flips([](Sealed& s) { return std::span<std::uint8_t>(s.tag); });
  FrameOpener opener(Key());
  EXPECT_TRUE(Open(opener, good));
}

TEST_P(FrameSealTest, ATruncatedPayloadIsRejected) {
  FrameSealer sealer(Key());
  Sealed s = Seal(sealer, Pattern(100));
  s.payload.pop_back();
  FrameOpener opener(Key());
  EXPECT_FALSE(Open(opener, s));
}

TEST_P(FrameSealTest, ReplayedReorderedAndDroppedFramesAreRejected) {
  FrameSealer sealer(Key());
  const Sealed first = Seal(sealer, Pattern(64));
  const Sealed second = Seal(sealer, Pattern(64));
  const Sealed third = Seal(sealer, Pattern(64));
  {
    FrameOpener opener(Key());
    EXPECT_TRUE(Open(opener, first));
    EXPECT_FALSE(Open(opener, first)) << "replayed";
  }
  {
    FrameOpener opener(Key());
    EXPECT_FALSE(Open(opener, second)) << "reordered";
  }
  {
    FrameOpener opener(Key());
    EXPECT_TRUE(Open(opener, first));
    EXPECT_FALSE(Open(opener, third)) << "second dropped";
  }
}

TEST_P(FrameSealTest, AFrameFromAnotherStreamOrDirectionIsRejected) {
  FrameSealer other_stream(Key(1));
  FrameSealer other_direction(Key(0, StreamDirection::kListenerToConnector));
  FrameOpener opener0(Key(0));
  EXPECT_FALSE(Open(opener0, Seal(other_stream, Pattern(32))));
  FrameOpener opener1(Key(0));
  EXPECT_FALSE(Open(opener1, Seal(other_direction, Pattern(32))));
}

TEST_P(FrameSealTest, AFailedOpenerStaysFailed) {
  FrameSealer sealer(Key());
  Sealed first = Seal(sealer, Pattern(16));
  const Sealed second = Seal(sealer, Pattern(16));
  FrameOpener opener(Key());
  Sealed bad = first;
  bad.tag[0] ^= 1;
  EXPECT_FALSE(Open(opener, bad));
  EXPECT_FALSE(Open(opener, first));
  EXPECT_FALSE(Open(opener, second));
}

TEST_P(FrameSealTest, BothEndsUpdateTheKeyAtTheSameFrame) {
  const KeyUpdateLimits every_three{3, std::uint64_t{1} << 40};
  FrameSealer sealer(Key(), every_three);
  FrameOpener opener(Key(), every_three);
  FrameOpener never_updates(Key(), {1000, std::uint64_t{1} << 40});
  for (int i = 0; i < 10; ++i) {
    Sealed s = Seal(sealer, Pattern(50));
    ASSERT_TRUE(Open(opener, s)) << "frame " << i;
    EXPECT_EQ(Open(never_updates, s), i < 3) << "frame " << i;
  }
}

TEST_P(FrameSealTest, AKeyUpdatesAfterItsByteBudget) {
  const KeyUpdateLimits hundred_bytes{1000, 100};
  FrameSealer sealer(Key(), hundred_bytes);
  FrameOpener opener(Key(), hundred_bytes);
  FrameOpener never_updates(Key());
  for (int i = 0; i < 3; ++i) {
    // 60, then 120 bytes on the first key: the third frame is the first on the next.
    Sealed s = Seal(sealer, Pattern(60));
    ASSERT_TRUE(Open(opener, s)) << "frame " << i;
    EXPECT_EQ(Open(never_updates, s), i < 2) << "frame " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Ciphers, FrameSealTest,
                         ::testing::Values(Cipher::kAes128Gcm, Cipher::kAes256Gcm,
                                           Cipher::kChacha20Poly1305),
                         [](const auto& info) {
                           std::string name(CipherName(info.param));
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace braid
