#include "core/loss_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace wanem {
namespace {

/// Drops `n` decisions and checks the count is within 4 standard deviations
/// of n*p: with a fixed seed this is deterministic, and far from flaky.
void ExpectRate(double p, std::uint64_t seed, int n) {
  LossModel loss(p, seed);
  int dropped = 0;
  for (int i = 0; i < n; ++i) dropped += loss.Drop() ? 1 : 0;
  const double mean = p * n;
  const double sigma = std::sqrt(n * p * (1 - p));
  EXPECT_NEAR(dropped, mean, 4 * sigma + 1) << "p=" << p << " seed=" << seed;
}

TEST(LossModel, RateMatchesProbabilityOverManyPackets) {
  ExpectRate(0.01, 1, 1'000'000);
  ExpectRate(0.0001, 7, 2'000'000);
  ExpectRate(0.3, 42, 100'000);
}

TEST(LossModel, SameSeedSameDecisions) {
  LossModel a(0.05, 99);
  LossModel b(0.05, 99);
  for (int i = 0; i < 10'000; ++i) ASSERT_EQ(a.Drop(), b.Drop()) << i;
}

TEST(LossModel, ZeroNeverDropsAndDrawsNothing) {
  int draws = 0;
  LossModel loss(0.0, [&draws] {
    ++draws;
    return std::uint64_t{0};
  });
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(loss.Drop());
  EXPECT_EQ(draws, 0);
}

TEST(LossModel, OneAlwaysDrops) {
  LossModel loss(1.0, 5);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(loss.Drop());
}

TEST(LossModel, InjectedSourceDecidesByThreshold) {
  // p = 1/4: draws below 2^62 drop.
  std::vector<std::uint64_t> draws{0, (1ull << 62) - 1, 1ull << 62, ~0ull};
  std::size_t next = 0;
  LossModel loss(0.25, [&] { return draws[next++]; });
  EXPECT_TRUE(loss.Drop());
  EXPECT_TRUE(loss.Drop());
  EXPECT_FALSE(loss.Drop());
  EXPECT_FALSE(loss.Drop());
}

TEST(LossModel, RejectsBadProbability) {
  EXPECT_THROW(LossModel(-0.1, 1), std::invalid_argument);
  EXPECT_THROW(LossModel(1.1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace wanem
