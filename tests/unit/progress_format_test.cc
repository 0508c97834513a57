#include "agent/report/progress_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace braid {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ProgressSnapshot Snapshot(std::uint64_t done, std::optional<std::uint64_t> total, double elapsed,
                          double current, double average) {
  return ProgressSnapshot{done, total, elapsed, current, average};
}

/// 1.23 GiB of 2.92 GiB (42%) at 812.4 MB/s, as in the documented examples.
ProgressSnapshot Typical() {
  return Snapshot(static_cast<std::uint64_t>(1.23 * static_cast<double>(kGiB)),
                  static_cast<std::uint64_t>(2.92 * static_cast<double>(kGiB)), 2.4, 812.4e6,
                  790.1e6);
}

TEST(ProgressFormatTest, CountOfIsSingularForOneOnly) {
  EXPECT_EQ(CountOf(1, "file"), "1 file");
  EXPECT_EQ(CountOf(0, "file"), "0 files");
  EXPECT_EQ(CountOf(2, "partial file"), "2 partial files");
  EXPECT_EQ(CountOf(1, "retry", "retries"), "1 retry");
  EXPECT_EQ(CountOf(3, "retry", "retries"), "3 retries");
}

TEST(ProgressFormatTest, FormatBytes) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(1024), "1.00 KiB");
  EXPECT_EQ(FormatBytes(1536), "1.50 KiB");
  EXPECT_EQ(FormatBytes(static_cast<std::uint64_t>(1.23 * static_cast<double>(kGiB))), "1.23 GiB");
  EXPECT_EQ(FormatBytes(2 * kGiB), "2.00 GiB");
  EXPECT_EQ(FormatBytes(kGiB * 1024), "1.00 TiB");
  EXPECT_EQ(FormatBytes(kMax), "16.00 EiB");
}

TEST(ProgressFormatTest, FormatBytesPromotesInsteadOfPrinting1024) {
  EXPECT_EQ(FormatBytes((std::uint64_t{1} << 20) - 1), "1.00 MiB");
  EXPECT_EQ(FormatBytes(kGiB - 1), "1.00 GiB");
  EXPECT_EQ(FormatBytes(1023 * 1024 + 1000), "1023.98 KiB");
}

TEST(ProgressFormatTest, FormatRate) {
  EXPECT_EQ(FormatRate(0), "0 B/s");
  EXPECT_EQ(FormatRate(512), "512 B/s");
  EXPECT_EQ(FormatRate(999), "999 B/s");
  EXPECT_EQ(FormatRate(1000), "1.0 kB/s");
  EXPECT_EQ(FormatRate(812.4e6), "812.4 MB/s");
  EXPECT_EQ(FormatRate(1.25e9), "1.2 GB/s");
  EXPECT_EQ(FormatRate(12.5e12), "12.5 TB/s");
  EXPECT_EQ(FormatRate(3e18), "3.0 EB/s");
}

TEST(ProgressFormatTest, FormatRatePromotesInsteadOfPrinting1000) {
  EXPECT_EQ(FormatRate(999.6), "1.0 kB/s");
  EXPECT_EQ(FormatRate(999.96e6), "1.0 GB/s");
  EXPECT_EQ(FormatRate(999.94e6), "999.9 MB/s");
}

TEST(ProgressFormatTest, FormatRateOddInputs) {
  EXPECT_EQ(FormatRate(-5), "0 B/s");
  EXPECT_EQ(FormatRate(kNaN), "0 B/s");
  EXPECT_EQ(FormatRate(kInf), "0 B/s");
  EXPECT_EQ(FormatRate(1e300), ">999 EB/s");
}

TEST(ProgressFormatTest, FormatDuration) {
  EXPECT_EQ(FormatDuration(0), "00:00");
  EXPECT_EQ(FormatDuration(3), "00:03");
  EXPECT_EQ(FormatDuration(3.99), "00:03");
  EXPECT_EQ(FormatDuration(59 * 60 + 59), "59:59");
  EXPECT_EQ(FormatDuration(3600), "01:00:00");
  EXPECT_EQ(FormatDuration(3723), "01:02:03");
  EXPECT_EQ(FormatDuration(100 * 3600 + 1), "100:00:01");
}

TEST(ProgressFormatTest, FormatDurationOddInputs) {
  EXPECT_EQ(FormatDuration(-1), "--:--");
  EXPECT_EQ(FormatDuration(kNaN), "--:--");
  EXPECT_EQ(FormatDuration(kInf), "--:--");
  EXPECT_EQ(FormatDuration(1e300), "--:--");
  EXPECT_EQ(FormatDuration(99999.0 * 3600), "99999:00:00");
}

TEST(ProgressFormatTest, LineWithKnownTotal) {
  EXPECT_EQ(FormatProgressLine(Typical()),
            "braid:  42% 1.23 GiB of 2.92 GiB  cur 812.4 MB/s  avg 790.1 MB/s  00:00:02");
}

TEST(ProgressFormatTest, LineWithUnknownTotal) {
  ProgressSnapshot s = Typical();
  s.bytes_total.reset();
  EXPECT_EQ(FormatProgressLine(s), "braid: 1.23 GiB  cur 812.4 MB/s  avg 790.1 MB/s  00:00:02");
}

TEST(ProgressFormatTest, LineAtZero) {
  EXPECT_EQ(FormatProgressLine(Snapshot(0, 0, 0, 0, 0)),
            "braid: 100% 0 B of 0 B  cur 0 B/s  avg 0 B/s  00:00:00");
  EXPECT_EQ(FormatProgressLine(Snapshot(0, 100, 0, 0, 0)),
            "braid:   0% 0 B of 100 B  cur 0 B/s  avg 0 B/s  00:00:00");
}

TEST(ProgressFormatTest, LineNeverSays100PercentEarly) {
  EXPECT_EQ(FormatProgressLine(Snapshot(kMax - 1, kMax, 1, 1, 1)).substr(0, 11), "braid:  99%");
  EXPECT_EQ(FormatProgressLine(Snapshot(kMax, kMax, 1, 1, 1)).substr(0, 11), "braid: 100%");
}

TEST(ProgressFormatTest, LineClampsOvershoot) {
  // A file that grew while being read.
  EXPECT_EQ(FormatProgressLine(Snapshot(300, 200, 1, 1, 1)).substr(0, 11), "braid: 100%");
}

TEST(ProgressFormatTest, LineWithHugeValues) {
  EXPECT_EQ(FormatProgressLine(Snapshot(kMax, std::nullopt, 1e8, 1e300, kInf)),
            "braid: 16.00 EiB  cur >999 EB/s  avg 0 B/s  27777:46:40");
  EXPECT_EQ(FormatProgressLine(Snapshot(1, std::nullopt, 1e300, 1, 1)),
            "braid: 1 B  cur 1 B/s  avg 1 B/s  --:--:--");
}

TEST(ProgressFormatTest, BarMatchesTheDocumentedLayout) {
  // 1.69 GiB left at 812.4 MB/s: 2.2 s.
  EXPECT_EQ(FormatProgressBar(Typical(), 50), "[=====>       ]  42% 1.23 GiB  812 MB/s  ETA 00:02");
}

TEST(ProgressFormatTest, BarFillsExactlyTheWidthForEveryWidth) {
  ProgressSnapshot unknown = Typical();
  unknown.bytes_total.reset();
  for (int width = 0; width <= 200; ++width) {
    EXPECT_EQ(FormatProgressBar(Typical(), width).size(), static_cast<std::size_t>(width));
    EXPECT_EQ(FormatProgressBar(unknown, width).size(), static_cast<std::size_t>(width));
    EXPECT_EQ(FormatProgressBar(Snapshot(kMax, kMax, 1e300, kNaN, -1), width).size(),
              static_cast<std::size_t>(width));
  }
}

TEST(ProgressFormatTest, BarOddWidths) {
  EXPECT_EQ(FormatProgressBar(Typical(), -5), "");
  EXPECT_EQ(FormatProgressBar(Typical(), 0), "");
  EXPECT_EQ(FormatProgressBar(Typical(), std::numeric_limits<int>::max()).size(), 4096u);
}

TEST(ProgressFormatTest, BarDropsFieldsAsTheTerminalNarrows) {
  const ProgressSnapshot s = Snapshot(kGiB, 2 * kGiB, 10, 100e6, 100e6);
  // Text: " 50% 1.00 GiB  100 MB/s  ETA 00:10" (34 chars); bar needs 7 plus a space.
  EXPECT_EQ(FormatProgressBar(s, 42), "[==>  ]  50% 1.00 GiB  100 MB/s  ETA 00:10");
  // Without the ETA the bar grows again.
  EXPECT_EQ(FormatProgressBar(s, 41), "[=======>       ]  50% 1.00 GiB  100 MB/s");
  EXPECT_EQ(FormatProgressBar(s, 31), "[==>  ]  50% 1.00 GiB  100 MB/s");
  // Without the rate.
  EXPECT_EQ(FormatProgressBar(s, 30), "[=======>      ]  50% 1.00 GiB");
  EXPECT_EQ(FormatProgressBar(s, 12), "[==>  ]  50%");
  // Without a bar.
  EXPECT_EQ(FormatProgressBar(s, 11), " 50%       ");
  EXPECT_EQ(FormatProgressBar(s, 4), " 50%");
  EXPECT_EQ(FormatProgressBar(s, 3), "50%");
  EXPECT_EQ(FormatProgressBar(s, 1), "5");
}

TEST(ProgressFormatTest, BarEnds) {
  EXPECT_EQ(FormatProgressBar(Snapshot(0, 100, 0, 0, 0), 30), "[>           ]   0% 0 B  0 B/s");
  EXPECT_EQ(FormatProgressBar(Snapshot(100, 100, 1, 100, 100), 40),
            "[=======] 100% 100 B  100 B/s  ETA 00:00");
}

TEST(ProgressFormatTest, BarEtaFallsBackToAverageThenUnknown) {
  EXPECT_EQ(FormatProgressBar(Snapshot(0, 1000, 1, 0, 100), 42),
            "[>          ]   0% 0 B  100 B/s  ETA 00:10");
  EXPECT_EQ(FormatProgressBar(Snapshot(0, 1000, 1, 0, 0), 42),
            "[>            ]   0% 0 B  0 B/s  ETA --:--");
}

TEST(ProgressFormatTest, BarWithZeroTotal) {
  const std::string bar = FormatProgressBar(Snapshot(0, 0, 0, 0, 0), 40);
  EXPECT_EQ(bar.size(), 40u);
  EXPECT_NE(bar.find("100%"), std::string::npos);
}

TEST(ProgressFormatTest, BarWithUnknownTotalBounces) {
  const auto at = [](double elapsed) {
    return FormatProgressBar(Snapshot(1024, std::nullopt, elapsed, 2000, 2000), 40);
  };
  // 12 cells inside the brackets: the marker has 10 positions, 8 steps a second.
  EXPECT_EQ(at(0), "[<=>         ] 1.00 KiB  2.0 kB/s  00:00");
  EXPECT_EQ(at(0.125), "[ <=>        ] 1.00 KiB  2.0 kB/s  00:00");
  EXPECT_EQ(at(9 * 0.125), "[         <=>] 1.00 KiB  2.0 kB/s  00:01");
  EXPECT_EQ(at(10 * 0.125), "[        <=> ] 1.00 KiB  2.0 kB/s  00:01");
  EXPECT_EQ(at(17 * 0.125), "[ <=>        ] 1.00 KiB  2.0 kB/s  00:02");
  EXPECT_EQ(at(18 * 0.125), "[<=>         ] 1.00 KiB  2.0 kB/s  00:02");
  EXPECT_EQ(at(19 * 0.125), "[ <=>        ] 1.00 KiB  2.0 kB/s  00:02");
  EXPECT_EQ(at(kNaN).substr(0, 5), "[<=> ");
  EXPECT_EQ(at(1e300).size(), 40u);
}

TEST(RateMeterTest, NothingBeforeTwoSamples) {
  RateMeter meter;
  EXPECT_EQ(meter.CurrentRate(), 0);
  EXPECT_EQ(meter.AverageRate(), 0);
  EXPECT_EQ(meter.ElapsedSeconds(), 0);
  EXPECT_EQ(meter.BytesSinceStart(), 0u);
  meter.Add(100, 0);
  EXPECT_EQ(meter.CurrentRate(), 0);
  EXPECT_EQ(meter.AverageRate(), 0);
}

TEST(RateMeterTest, SteadyRate) {
  RateMeter meter;
  for (int i = 0; i <= 100; ++i) {
    meter.Add(1000 + i * 0.1, static_cast<std::uint64_t>(i) * 1000000);
  }
  EXPECT_NEAR(meter.CurrentRate(), 10e6, 1);
  EXPECT_NEAR(meter.AverageRate(), 10e6, 1);
  EXPECT_NEAR(meter.ElapsedSeconds(), 10, 1e-9);
  EXPECT_EQ(meter.BytesSinceStart(), 100000000u);
}

TEST(RateMeterTest, CurrentFollowsTheLastWindowAverageKeepsHistory) {
  RateMeter meter(2.0);
  // 10 s at 100 MB/s, then 4 s at 10 MB/s.
  double t = 0;
  std::uint64_t bytes = 0;
  meter.Add(t, bytes);
  for (int i = 0; i < 100; ++i) {
    t += 0.1;
    bytes += 10000000;
    meter.Add(t, bytes);
  }
  EXPECT_NEAR(meter.CurrentRate(), 100e6, 1e3);
  for (int i = 0; i < 40; ++i) {
    t += 0.1;
    bytes += 1000000;
    meter.Add(t, bytes);
  }
  EXPECT_NEAR(meter.CurrentRate(), 10e6, 1e3);
  EXPECT_NEAR(meter.AverageRate(), (1e9 + 4e7) / 14, 1e3);
}

TEST(RateMeterTest, StallShowsAsZero) {
  RateMeter meter;
  meter.Add(0, 0);
  meter.Add(1, 5000);
  meter.Add(2, 10000);
  EXPECT_NEAR(meter.CurrentRate(), 5000, 1e-6);
  meter.Add(3, 10000);
  meter.Add(4, 10000);
  EXPECT_EQ(meter.CurrentRate(), 0);
  EXPECT_NEAR(meter.AverageRate(), 2500, 1e-6);
}

TEST(RateMeterTest, SparseSamplesSpanTheGap) {
  RateMeter meter;
  meter.Add(0, 0);
  meter.Add(10, 1000);
  EXPECT_NEAR(meter.CurrentRate(), 100, 1e-9);
}

TEST(RateMeterTest, StartsFromTheFirstSampleNotZero) {
  RateMeter meter;
  meter.Add(50, 1000000);  // resumed: a megabyte was already there
  meter.Add(51, 1001000);
  EXPECT_NEAR(meter.AverageRate(), 1000, 1e-9);
  EXPECT_EQ(meter.BytesSinceStart(), 1000u);
  EXPECT_NEAR(meter.ElapsedSeconds(), 1, 1e-12);
}

TEST(RateMeterTest, IgnoresBackwardsAndNonFiniteSamples) {
  RateMeter meter;
  meter.Add(kNaN, 5);
  meter.Add(0, 0);
  meter.Add(1, 1000);
  meter.Add(0.5, 2000);  // time went backwards
  meter.Add(2, 500);     // bytes went backwards
  meter.Add(kInf, 9999);
  EXPECT_NEAR(meter.AverageRate(), 1000, 1e-9);
  EXPECT_EQ(meter.BytesSinceStart(), 1000u);
}

TEST(RateMeterTest, SameTimeTwiceIsNotADivisionByZero) {
  RateMeter meter;
  meter.Add(5, 0);
  meter.Add(5, 100);
  EXPECT_EQ(meter.CurrentRate(), 0);
  EXPECT_EQ(meter.AverageRate(), 0);
  meter.Add(6, 200);
  EXPECT_NEAR(meter.CurrentRate(), 200, 1e-9);
}

TEST(RateMeterTest, VeryFrequentSamplesStayAccurate) {
  RateMeter meter;
  // 100 ms of samples every microsecond, at 1 GB/s: coalescing must not skew the rate.
  for (int i = 0; i <= 100000; ++i) {
    meter.Add(i * 1e-6, static_cast<std::uint64_t>(i) * 1000);
  }
  EXPECT_NEAR(meter.CurrentRate(), 1e9, 1e3);
  for (int i = 100001; i <= 3000000; i += 7) {
    meter.Add(i * 1e-6, static_cast<std::uint64_t>(i) * 1000);
  }
  EXPECT_NEAR(meter.CurrentRate(), 1e9, 1e3);
}

TEST(RateMeterTest, BadWindowFallsBackToDefault) {
  RateMeter meter(-1);
  meter.Add(0, 0);
  meter.Add(1, 1000);
  meter.Add(4, 1000);  // 1..4 s flat: a 2 s window sees 0
  EXPECT_EQ(meter.CurrentRate(), 0);
}

}  // namespace
}  // namespace braid
