#include "core/class_scheduler.h"

#include <gtest/gtest.h>

#include <array>
#include <initializer_list>
#include <optional>
#include <stdexcept>

#include "core/link.h"

namespace wanem {
namespace {

constexpr std::uint64_t kRate = 500'000'000;

/// Bytes each class sent while the given classes were kept backlogged with
/// equal frames for `seconds` of link time, and the link time that took.
struct Sent {
  std::array<double, kClassCount> bytes{};
  double total = 0;
  double capacity = 0;  ///< bytes the link could have carried meanwhile
};

Sent Backlogged(std::initializer_list<TrafficClass> busy, std::uint64_t frame_bytes,
                ClassShares shares, double seconds) {
  ClassScheduler sched(kRate, 1 << 30, shares);
  Link link(kRate);
  Sent sent;
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
  while (link.free_at() < end) {
    refill();
    const std::int64_t turn = sched.ReadyAt(link.free_at());
    std::optional<Frame> f = sched.Dequeue(turn);
    if (!f) throw std::logic_error("nothing to send at ReadyAt's time");
    link.Transmit(turn, f->wire_bytes);
    sent.bytes[Index(f->traffic_class)] += static_cast<double>(f->wire_bytes);
    sent.total += static_cast<double>(f->wire_bytes);
  }
  sent.capacity = static_cast<double>(link.free_at()) * kRate / 8e9;
  return sent;
}

/// The share of the bytes sent each class got.
std::array<double, kClassCount> Shares(std::initializer_list<TrafficClass> busy,
                                       std::uint64_t frame_bytes, ClassShares shares,
                                       double seconds = 2.0) {
  Sent sent = Backlogged(busy, frame_bytes, shares, seconds);
  for (double& s : sent.bytes) s /= sent.total;
  return sent.bytes;
}

/// The share of the link's capacity each class used (less than 1 in all when
/// a cap idles the link).
std::array<double, kClassCount> OfLink(std::initializer_list<TrafficClass> busy,
                                       std::uint64_t frame_bytes, ClassShares shares,
                                       double seconds = 2.0) {
  Sent sent = Backlogged(busy, frame_bytes, shares, seconds);
  for (double& s : sent.bytes) s /= sent.capacity;
  return sent.bytes;
}

ClassShares Capped(TrafficClass c, double cap, double best_effort = 0.10, double scavenger = 0.02) {
  ClassShares shares{best_effort, scavenger};
  shares.cap[Index(c)] = cap;
  return shares;
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

TEST(ClassScheduler, CappedClassAloneIsHeldToItsCapAndTheLinkIdles) {
  auto s = OfLink({kP}, 1500, Capped(kP, 0.30));
  EXPECT_NEAR(s[Index(kP)], 0.30, 0.003);
}

TEST(ClassScheduler, CapHoldsWithGsoSizedFrames) {
  auto s = OfLink({kP}, 65'226, Capped(kP, 0.30));
  EXPECT_NEAR(s[Index(kP)], 0.30, 0.005);
}

TEST(ClassScheduler, BestEffortGetsWhatACappedPriorityLeaves) {
  auto s = OfLink({kP, kBE}, 1500, Capped(kP, 0.30));
  EXPECT_NEAR(s[Index(kP)], 0.30, 0.003);
  EXPECT_NEAR(s[Index(kBE)], 0.70, 0.003);
}

TEST(ClassScheduler, Slac6500PolicyWithAllThreeBusy) {
  // QBSS its own 5% queue, priority held to 30%: best effort gets the rest.
  auto s = OfLink({kP, kBE, kS}, 1500, Capped(kP, 0.30, 0.10, 0.05));
  EXPECT_NEAR(s[Index(kP)], 0.30, 0.003);
  EXPECT_NEAR(s[Index(kS)], 0.05, 0.003);
  EXPECT_NEAR(s[Index(kBE)], 0.65, 0.005);
}

TEST(ClassScheduler, CapBelowTheGuaranteeWins) {
  auto s = OfLink({kBE, kS}, 1500, Capped(kS, 0.01, 0.10, 0.05));
  EXPECT_NEAR(s[Index(kS)], 0.01, 0.002);
  EXPECT_NEAR(s[Index(kBE)], 0.99, 0.003);
}

TEST(ClassScheduler, CappedClassInDebtWaitsUntilReadyAt) {
  ClassScheduler sched(kRate, 1 << 20, Capped(kP, 0.5));
  for (int i = 0; i < 20; ++i) {
    Frame f;
    f.wire_bytes = 1500;
    f.traffic_class = kP;
    sched.queue(kP).Push(f);
  }
  // The bucket starts with 10 ms of the cap (312,500 bytes at 250 Mbit/s)...
  std::int64_t now = 0;
  while (!sched.Empty() && sched.ReadyAt(now) == now) {
    ASSERT_TRUE(sched.Dequeue(now).has_value());
  }
  EXPECT_TRUE(sched.Empty());  // ...so 20 frames all go at once
  for (int i = 0; i < 300; ++i) {
    Frame f;
    f.wire_bytes = 1500;
    f.traffic_class = kP;
    sched.queue(kP).Push(f);
  }
  int sent = 0;
  while (sched.ReadyAt(now) == now) {
    ASSERT_TRUE(sched.Dequeue(now).has_value());
    ++sent;
  }
  EXPECT_LT(sent, 300);
  EXPECT_FALSE(sched.Dequeue(now).has_value());  // in debt: nothing yet
  const std::int64_t ready = sched.ReadyAt(now);
  EXPECT_GT(ready, now);
  EXPECT_LE(ready, now + 48'000 + 1);  // one frame's worth at 31.25 bytes/us
  EXPECT_FALSE(sched.Dequeue(ready - 1).has_value());
  EXPECT_TRUE(sched.Dequeue(ready).has_value());
}

TEST(ClassScheduler, CapOf100PercentIsNoCap) {
  auto s = OfLink({kP}, 1500, Capped(kP, 1.0), 0.5);
  EXPECT_NEAR(s[Index(kP)], 1.0, 0.001);
}

TEST(ClassScheduler, RejectsCapsOutside0To100Percent) {
  EXPECT_THROW(ClassScheduler(kRate, 1000, Capped(kP, 1.5)), std::invalid_argument);
  EXPECT_THROW(ClassScheduler(kRate, 1000, Capped(kP, -0.1)), std::invalid_argument);
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
