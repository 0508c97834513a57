#include "core/link.h"

#include <gtest/gtest.h>

namespace wanem {
namespace {

TEST(Link, SerialisesAtTheRate) {
  Link link(1'000'000'000);  // 1 Gbit/s: 1500 bytes take 12 us
  EXPECT_EQ(link.Transmit(0, 1500), 12'000);
  EXPECT_EQ(link.Transmit(0, 1500), 24'000);  // waits for the first
  EXPECT_EQ(link.free_at(), 24'000);
}

TEST(Link, IdleLinkStartsAtArrival) {
  Link link(1'000'000'000);
  link.Transmit(0, 1500);
  EXPECT_EQ(link.Transmit(1'000'000, 1500), 1'012'000);
}

TEST(Link, NoDriftFromRounding) {
  // 100 bytes at 3 Gbit/s is 266.67 ns: rounding each frame would drift by
  // a third of a nanosecond per frame.
  Link link(3'000'000'000);
  std::int64_t done = 0;
  for (int i = 0; i < 3'000'000; ++i) done = link.Transmit(0, 100);
  EXPECT_EQ(done, 800'000'000);  // 300 MB at 3 Gbit/s = 0.8 s exactly
}

TEST(Link, LongRunRateIsExact) {
  Link link(500'000'000);
  std::int64_t done = 0;
  for (int i = 0; i < 10'000; ++i) done = link.Transmit(0, 65'226);
  const double rate = 10'000.0 * 65'226 * 8 / (static_cast<double>(done) / 1e9);
  EXPECT_NEAR(rate, 500e6, 1.0);
}

TEST(Link, UnlimitedTakesNoTime) {
  Link link(0);
  EXPECT_EQ(link.Transmit(5, 65'000), 5);
}

}  // namespace
}  // namespace wanem
