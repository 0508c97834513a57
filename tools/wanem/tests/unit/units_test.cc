#include "core/units.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace wanem {
namespace {

TEST(Units, RatesAreDecimalBitsPerSecond) {
  EXPECT_EQ(ParseRate("1G"), 1'000'000'000u);
  EXPECT_EQ(ParseRate("500M"), 500'000'000u);
  EXPECT_EQ(ParseRate("800Mbit"), 800'000'000u);
  EXPECT_EQ(ParseRate("2.5Gbit/s"), 2'500'000'000u);
  EXPECT_EQ(ParseRate("100k"), 100'000u);
  EXPECT_EQ(ParseRate("12345"), 12345u);
  EXPECT_EQ(ParseRate("0"), 0u);
  EXPECT_THROW(ParseRate("fast"), std::invalid_argument);
  EXPECT_THROW(ParseRate("1X"), std::invalid_argument);
  EXPECT_THROW(ParseRate("-1G"), std::invalid_argument);
}

TEST(Units, DurationsNeedAUnit) {
  EXPECT_EQ(ParseDuration("50ms"), 50'000'000);
  EXPECT_EQ(ParseDuration("25us"), 25'000);
  EXPECT_EQ(ParseDuration("0.5s"), 500'000'000);
  EXPECT_EQ(ParseDuration("100ns"), 100);
  EXPECT_EQ(ParseDuration("0"), 0);
  EXPECT_THROW(ParseDuration("50"), std::invalid_argument);
  EXPECT_THROW(ParseDuration("50min"), std::invalid_argument);
}

TEST(Units, SizesAreBinary) {
  EXPECT_EQ(ParseBytes("64K"), 65536u);
  EXPECT_EQ(ParseBytes("6M"), 6u << 20);
  EXPECT_EQ(ParseBytes("1GiB"), 1u << 30);
  EXPECT_EQ(ParseBytes("1500"), 1500u);
  EXPECT_EQ(ParseBytes("2KB"), 2048u);
  EXPECT_THROW(ParseBytes("3Q"), std::invalid_argument);
}

TEST(Units, FractionsArePercentOrPlain) {
  EXPECT_DOUBLE_EQ(ParseFraction("0.01%"), 0.0001);
  EXPECT_DOUBLE_EQ(ParseFraction("2%"), 0.02);
  EXPECT_DOUBLE_EQ(ParseFraction("0.25"), 0.25);
  EXPECT_DOUBLE_EQ(ParseFraction("0"), 0.0);
  EXPECT_THROW(ParseFraction("120%"), std::invalid_argument);
  EXPECT_THROW(ParseFraction("1.5"), std::invalid_argument);
  EXPECT_THROW(ParseFraction("5 percent"), std::invalid_argument);
}

}  // namespace
}  // namespace wanem
