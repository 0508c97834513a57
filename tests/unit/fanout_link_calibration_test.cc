#include "agent/fanout/link_calibration.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace braid {
namespace {

constexpr double kTick = 0.1;

/// Feeds `calibration` from `from_s` to `to_s` at `Bps`, starting at `bytes`; returns the bytes
/// then.
std::uint64_t Feed(LinkCalibration& calibration, double from_s, double to_s, double Bps,
                   std::uint64_t bytes) {
  for (double t = from_s; t <= to_s + 1e-9; t += kTick) {
    calibration.Add(t, bytes);
    bytes += static_cast<std::uint64_t>(Bps * kTick);
  }
  return bytes;
}

TEST(LinkCalibrationTest, MeasuresAfterTheFirstHalfSecondForTwoSeconds) {
  LinkCalibration calibration;
  calibration.Add(0, 0);
  calibration.Add(1.0, 0);  // logins: nothing yet
  // A slow start, then 25 MB/s.
  std::uint64_t bytes = Feed(calibration, 1.1, 1.5, 5e6, 1);
  EXPECT_FALSE(calibration.link_Bps().has_value());
  Feed(calibration, 1.6, 3.5, 25e6, bytes);
  EXPECT_FALSE(calibration.link_Bps().has_value()) << "not two seconds yet";
  Feed(calibration, 3.6, 4.5, 25e6, bytes + static_cast<std::uint64_t>(25e6 * 2.0));
  ASSERT_TRUE(calibration.link_Bps().has_value());
  EXPECT_NEAR(*calibration.link_Bps(), 25e6, 25e6 * 0.06);
}

TEST(LinkCalibrationTest, KeepsItsFirstMeasurementAndIgnoresStepsBack) {
  LinkCalibration calibration;
  Feed(calibration, 0, 3, 10e6, 1);
  ASSERT_TRUE(calibration.link_Bps().has_value());
  const double first = *calibration.link_Bps();
  calibration.Add(2.0, 0);  // back in time and bytes: a child began again
  Feed(calibration, 3.1, 9, 50e6, 40'000'000);
  EXPECT_EQ(*calibration.link_Bps(), first);
}

TEST(LinkCalibrationTest, ACopyTooShortIsNeverMeasured) {
  LinkCalibration calibration;
  Feed(calibration, 0, 1.5, 100e6, 1);
  EXPECT_FALSE(calibration.link_Bps().has_value());
}

}  // namespace
}  // namespace braid
