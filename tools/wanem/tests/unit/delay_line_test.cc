#include "core/delay_line.h"

#include <gtest/gtest.h>

namespace wanem {
namespace {

Frame Sized(std::uint64_t wire, std::uint8_t tag) {
  Frame f;
  f.bytes = {tag};
  f.wire_bytes = wire;
  return f;
}

TEST(DelayLine, ReleasesExactlyDelayAfterDeparture) {
  DelayLine line(25'000'000);
  EXPECT_EQ(line.NextRelease(), kNever);
  line.Push(Sized(100, 1), 1'000);
  EXPECT_EQ(line.NextRelease(), 25'001'000);
  EXPECT_FALSE(line.Due(25'000'999));
  EXPECT_TRUE(line.Due(25'001'000));
  Frame f = line.Pop();
  EXPECT_EQ(f.release_ns, 25'001'000);
  EXPECT_EQ(f.bytes[0], 1);
}

TEST(DelayLine, KeepsOrderEvenIfDeparturesGoBackwards) {
  DelayLine line(1'000);
  line.Push(Sized(1, 1), 500);
  line.Push(Sized(1, 2), 300);  // earlier departure handed in later
  line.Push(Sized(1, 3), 900);
  EXPECT_EQ(line.Pop().bytes[0], 1);
  Frame second = line.Pop();
  EXPECT_EQ(second.bytes[0], 2);
  EXPECT_EQ(second.release_ns, 1'500);  // held back behind the first, not reordered
  EXPECT_EQ(line.Pop().release_ns, 1'900);
}

TEST(DelayLine, CountsBytesInFlight) {
  DelayLine line(10);
  line.Push(Sized(1500, 1), 0);
  line.Push(Sized(66, 2), 1);
  EXPECT_EQ(line.bytes(), 1566u);
  EXPECT_EQ(line.size(), 2u);
  line.Pop();
  EXPECT_EQ(line.bytes(), 66u);
}

}  // namespace
}  // namespace wanem
