#include "core/class_scheduler.h"

#include <gtest/gtest.h>

#include <array>
#include <initializer_list>

#include "core/link.h"

namespace wanem {
namespace {

constexpr std::uint64_t kRate = 500'000'000;

/// Keeps the given classes backlogged with equal frames for `seconds` of link
/// time and returns the share of the bytes each class got.
std::array<double, kClassCount> Shares(std::initializer_list<TrafficClass> busy,
                                       std::uint64_t frame_bytes, ClassShares shares,
                                       double seconds = 2.0) {
  ClassScheduler sched(kRate, 1 << 30, shares);
  Link link(kRate);
  std::array<double, kClassCount> sent{};
  auto refill = [&] {
    for (TrafficClass c : busy) {
      while (sched.queue(c).size() < 4) {
        Frame f;
        f.wire_bytes = frame_bytes;
        f.traffic_class = c;
        sched.queue(c).Push(f);
      }
    }
  };
  const auto end = static_cast<std::int64_t>(seconds * 1e9);
  double total = 0;
  while (link.free_at() < end) {
    refill();
    Frame f = sched.Dequeue(link.free_at());
    link.Transmit(0, f.wire_bytes);
    sent[Index(f.traffic_class)] += static_cast<double>(f.wire_bytes);
    total += static_cast<double>(f.wire_bytes);
  }
  for (double& s : sent) s /= total;
  return sent;
}

constexpr auto kP = TrafficClass::kPriority;
constexpr auto kBE = TrafficClass::kBestEffort;
constexpr auto kS = TrafficClass::kScavenger;

TEST(ClassScheduler, ScavengerGetsItsMinimumShareBesideBestEffort) {
  auto s = Shares({kBE, kS}, 1500, ClassShares{0.10, 0.02});
  EXPECT_NEAR(s[Index(kS)], 0.02, 0.002);
  EXPECT_NEAR(s[Index(kBE)], 0.98, 0.002);
}

TEST(ClassScheduler, SharesHoldWithGsoSizedFrames) {
  auto s = Shares({kBE, kS}, 65'226, ClassShares{0.10, 0.05});
  EXPECT_NEAR(s[Index(kS)], 0.05, 0.005);
}

TEST(ClassScheduler, PriorityIsBoundedSoNobodyStarves) {
  auto s = Shares({kP, kBE, kS}, 1500, ClassShares{0.10, 0.02});
  EXPECT_NEAR(s[Index(kS)], 0.02, 0.002);
  EXPECT_NEAR(s[Index(kBE)], 0.10, 0.002);
  EXPECT_NEAR(s[Index(kP)], 0.88, 0.003);
}

TEST(ClassScheduler, IdleShareGoesToPriority) {
  auto s = Shares({kP, kS}, 1500, ClassShares{0.10, 0.02});
  EXPECT_NEAR(s[Index(kS)], 0.02, 0.002);
  EXPECT_NEAR(s[Index(kP)], 0.98, 0.002);
}

TEST(ClassScheduler, AloneAClassGetsTheWholeLink) {
  for (TrafficClass c : {kP, kBE, kS}) {
    auto s = Shares({c}, 1500, ClassShares{0.10, 0.02}, 0.5);
    EXPECT_DOUBLE_EQ(s[Index(c)], 1.0) << ClassName(c);
  }
}

TEST(ClassScheduler, StrictOrderWithoutShares) {
  auto s = Shares({kP, kBE, kS}, 1500, ClassShares{0, 0}, 0.5);
  EXPECT_DOUBLE_EQ(s[Index(kP)], 1.0);
}

TEST(ClassScheduler, RejectsSharesOf100Percent) {
  EXPECT_THROW(ClassScheduler(kRate, 1000, (ClassShares{0.5, 0.5})), std::invalid_argument);
}

TEST(ClassMap, DefaultQbssMapping) {
  ClassMap map;
  EXPECT_EQ(map.Classify(0x20), kS);  // CS1, QBSS
  EXPECT_EQ(map.Classify(0x04), kS);  // LE
  EXPECT_EQ(map.Classify(0x28), kP);  // AF11
  EXPECT_EQ(map.Classify(0xb8), kP);  // EF
  EXPECT_EQ(map.Classify(0x00), kBE);
  EXPECT_EQ(map.Classify(0x22), kS);  // ECN bits do not change the class
  map.Clear(kP);
  EXPECT_EQ(map.Classify(0x28), kBE);
}

}  // namespace
}  // namespace wanem
