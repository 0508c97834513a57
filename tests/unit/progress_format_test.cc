#include "agent/report/progress_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace braid {
namespace {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
constexpr double kMiB = 1024.0 * 1024;
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ProgressSnapshot Snapshot(std::uint64_t done, std::optional<std::uint64_t> total, double elapsed,
                          double current, double average) {
  ProgressSnapshot s;
  s.bytes_done = done;
  s.bytes_total = total;
  s.elapsed_s = elapsed;
  s.current_rate_Bps = current;
  s.average_rate_Bps = average;
  return s;
}

/// 1.23 GiB of 2.92 GiB (42%) at 812.4 MiB/s, as in the documented examples.
ProgressSnapshot Typical() {
  return Snapshot(static_cast<std::uint64_t>(1.23 * static_cast<double>(kGiB)),
                  static_cast<std::uint64_t>(2.92 * static_cast<double>(kGiB)), 2.4, 812.4 * kMiB,
                  790.1 * kMiB);
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

TEST(ProgressFormatTest, FormatRateIsBinaryAsSizesAre) {
  EXPECT_EQ(FormatRate(0), "0 B/s");
  EXPECT_EQ(FormatRate(512), "512 B/s");
  EXPECT_EQ(FormatRate(1023), "1023 B/s");
  EXPECT_EQ(FormatRate(1024), "1.0 KiB/s");
  EXPECT_EQ(FormatRate(812.4 * kMiB), "812.4 MiB/s");
  EXPECT_EQ(FormatRate(1.25 * kMiB * 1024), "1.2 GiB/s");
  EXPECT_EQ(FormatRate(12.5 * 0x1p40), "12.5 TiB/s");
  EXPECT_EQ(FormatRate(3 * 0x1p60), "3.0 EiB/s");
}

TEST(ProgressFormatTest, FormatRatePromotesInsteadOfPrinting1024) {
  EXPECT_EQ(FormatRate(1023.6), "1.0 KiB/s");
  EXPECT_EQ(FormatRate(1023.96 * kMiB), "1.0 GiB/s");
  EXPECT_EQ(FormatRate(1023.94 * kMiB), "1023.9 MiB/s");
}

TEST(ProgressFormatTest, FormatRateOddInputs) {
  EXPECT_EQ(FormatRate(-5), "0 B/s");
  EXPECT_EQ(FormatRate(kNaN), "0 B/s");
  EXPECT_EQ(FormatRate(kInf), "0 B/s");
  EXPECT_EQ(FormatRate(1e300), ">999 EiB/s");
}

TEST(ProgressFormatTest, EtaRoundsUpSoANearlyDoneCopyIsNotDone) {
  EXPECT_EQ(EtaSeconds(0, 0), 0);
  EXPECT_EQ(EtaSeconds(100, 0), -1);
  EXPECT_EQ(EtaSeconds(100, kNaN), -1);
  EXPECT_EQ(EtaSeconds(100, 1000), 1);
  EXPECT_EQ(EtaSeconds(1000, 100), 10);
  EXPECT_EQ(EtaSeconds(1001, 100), 11);
  // The report that filed it: "ETA 00:00" at 83% of a three-second copy.
  EXPECT_NE(FormatProgressBar(Snapshot(83, 100, 2.5, 34, 34), 60).find("ETA 00:01"),
            std::string::npos);
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
            "braid:  42% 1.23 GiB of 2.92 GiB  cur 812.4 MiB/s  avg 790.1 MiB/s  "
            "elapsed 00:00:02  ETA 00:00:03");
}

TEST(ProgressFormatTest, LineCountsFilesWhenThereAreSeveral) {
  ProgressSnapshot s = Typical();
  s.files_done = 312;
  s.files_total = 10000;
  EXPECT_EQ(FormatProgressLine(s),
            "braid:  42% 1.23 GiB of 2.92 GiB  312/10000 files  cur 812.4 MiB/s  "
            "avg 790.1 MiB/s  elapsed 00:00:02  ETA 00:00:03");
  s.files_total = 1;
  EXPECT_EQ(FormatProgressLine(s).find("files"), std::string::npos);
}

TEST(ProgressFormatTest, LineWithUnknownTotal) {
  ProgressSnapshot s = Typical();
  s.bytes_total.reset();
  EXPECT_EQ(FormatProgressLine(s),
            "braid: 1.23 GiB  cur 812.4 MiB/s  avg 790.1 MiB/s  elapsed 00:00:02");
}

TEST(ProgressFormatTest, LineAtZero) {
  EXPECT_EQ(FormatProgressLine(Snapshot(0, 0, 0, 0, 0)),
            "braid: 100% 0 B of 0 B  cur 0 B/s  avg 0 B/s  elapsed 00:00:00  ETA 00:00:00");
  EXPECT_EQ(FormatProgressLine(Snapshot(0, 100, 0, 0, 0)),
            "braid:   0% 0 B of 100 B  cur 0 B/s  avg 0 B/s  elapsed 00:00:00  ETA --:--:--");
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
            "braid: 16.00 EiB  cur >999 EiB/s  avg 0 B/s  elapsed 27777:46:40");
  EXPECT_EQ(FormatProgressLine(Snapshot(1, std::nullopt, 1e300, 1, 1)),
            "braid: 1 B  cur 1 B/s  avg 1 B/s  elapsed --:--:--");
}

TEST(ProgressFormatTest, BarMatchesTheDocumentedLayout) {
  // 1.69 GiB left at 812.4 MiB/s: 2.1 s, so 3 s to go.
  EXPECT_EQ(FormatProgressBar(Typical(), 60),
            "[=======>         ]  42% 1.23/2.92 GiB  812 MiB/s  ETA 00:03");
}

TEST(ProgressFormatTest, BarNamesBothUnitsWhenTheyDiffer) {
  EXPECT_NE(FormatProgressBar(Snapshot(kMiB, kGiB, 1, kMiB, kMiB), 80).find(" 1.00 MiB/1.00 GiB "),
            std::string::npos);
}

TEST(ProgressFormatTest, BarShowsTheFileCountAndTheCurrentFile) {
  ProgressSnapshot s = Typical();
  s.files_done = 312;
  s.files_total = 10000;
  s.current_file = "dir/some/long/name.dat";
  const std::string bar = FormatProgressBar(s, 120);
  EXPECT_EQ(bar.size(), 120u);
  EXPECT_EQ(bar.substr(39),
            " 42% 1.23/2.92 GiB  812 MiB/s  ETA 00:03  312/10000 files  "
            "dir/some/long/name.dat");
  // Too narrow for the name: the bar takes its room, the count stays.
  const std::string narrow = FormatProgressBar(s, 80);
  EXPECT_EQ(narrow.size(), 80u);
  EXPECT_EQ(narrow.find("name.dat"), std::string::npos);
  EXPECT_NE(narrow.find("312/10000 files"), std::string::npos);
}

TEST(ProgressFormatTest, BarCutsALongNameFromTheFront) {
  ProgressSnapshot s = Typical();
  s.current_file = std::string(90, 'a') + "/tail.dat";
  const std::string bar = FormatProgressBar(s, 120);
  EXPECT_EQ(bar.size(), 120u);
  EXPECT_NE(bar.find("  ...a"), std::string::npos) << bar;
  EXPECT_EQ(bar.substr(bar.size() - 9), "/tail.dat");
}

/// Columns a terminal gives `text` (one per UTF-8 character).
std::size_t Columns(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

TEST(ProgressFormatTest, BarShowsANameVisiblyAndInColumns) {
  ProgressSnapshot s = Typical();
  s.current_file =
      "\x1b]0;owned\x07"
      "donn\xc3\xa9"
      "es/\xc3\xa9t\xc3\xa9.txt";
  for (int width : {120, 90, 75}) {
    const std::string bar = FormatProgressBar(s, width);
    EXPECT_EQ(Columns(bar), static_cast<std::size_t>(width)) << bar;
    EXPECT_EQ(bar.find('\x1b'), std::string::npos) << bar;
    EXPECT_EQ(bar.find('\x07'), std::string::npos) << bar;
  }
  EXPECT_NE(FormatProgressBar(s, 120).find("\\x1b]0;owned\\x07donn\xc3\xa9"
                                           "es/"),
            std::string::npos);
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
  const ProgressSnapshot s = Snapshot(kGiB, 2 * kGiB, 10, 100 * kMiB, 100 * kMiB);
  // Text: " 50% 1.00/2.00 GiB  100 MiB/s  ETA 00:11" (40 chars); bar needs 7 plus a space.
  EXPECT_EQ(FormatProgressBar(s, 48), "[==>  ]  50% 1.00/2.00 GiB  100 MiB/s  ETA 00:11");
  // Without the ETA the bar grows again.
  EXPECT_EQ(FormatProgressBar(s, 47), "[=======>       ]  50% 1.00/2.00 GiB  100 MiB/s");
  EXPECT_EQ(FormatProgressBar(s, 37), "[==>  ]  50% 1.00/2.00 GiB  100 MiB/s");
  // Without the rate.
  EXPECT_EQ(FormatProgressBar(s, 36), "[=======>       ]  50% 1.00/2.00 GiB");
  EXPECT_EQ(FormatProgressBar(s, 12), "[==>  ]  50%");
  // Without a bar.
  EXPECT_EQ(FormatProgressBar(s, 11), " 50%       ");
  EXPECT_EQ(FormatProgressBar(s, 4), " 50%");
  EXPECT_EQ(FormatProgressBar(s, 3), "50%");
  EXPECT_EQ(FormatProgressBar(s, 1), "5");
}

TEST(ProgressFormatTest, BarEnds) {
  EXPECT_EQ(FormatProgressBar(Snapshot(0, 100, 0, 0, 0), 34), "[>           ]   0% 0/100 B  0 B/s");
  EXPECT_EQ(FormatProgressBar(Snapshot(100, 100, 1, 100, 100), 46),
            "[=========] 100% 100/100 B  100 B/s  ETA 00:00");
}

TEST(ProgressFormatTest, BarEtaFallsBackToAverageThenUnknown) {
  EXPECT_EQ(FormatProgressBar(Snapshot(0, 1000, 1, 0, 100), 47),
            "[>          ]   0% 0/1000 B  100 B/s  ETA 00:10");
  EXPECT_EQ(FormatProgressBar(Snapshot(0, 1000, 1, 0, 0), 47),
            "[>            ]   0% 0/1000 B  0 B/s  ETA --:--");
}

TEST(ProgressFormatTest, BarWithZeroTotal) {
  const std::string bar = FormatProgressBar(Snapshot(0, 0, 0, 0, 0), 40);
  EXPECT_EQ(bar.size(), 40u);
  EXPECT_NE(bar.find("100%"), std::string::npos);
}

TEST(ProgressFormatTest, BarWithUnknownTotalBounces) {
  const auto at = [](double elapsed) {
    return FormatProgressBar(Snapshot(1024, std::nullopt, elapsed, 2048, 2048), 41);
  };
  // 12 cells inside the brackets: the marker has 10 positions, 8 steps a second.
  EXPECT_EQ(at(0), "[<=>         ] 1.00 KiB  2.0 KiB/s  00:00");
  EXPECT_EQ(at(0.125), "[ <=>        ] 1.00 KiB  2.0 KiB/s  00:00");
  EXPECT_EQ(at(9 * 0.125), "[         <=>] 1.00 KiB  2.0 KiB/s  00:01");
  EXPECT_EQ(at(10 * 0.125), "[        <=> ] 1.00 KiB  2.0 KiB/s  00:01");
  EXPECT_EQ(at(17 * 0.125), "[ <=>        ] 1.00 KiB  2.0 KiB/s  00:02");
  EXPECT_EQ(at(18 * 0.125), "[<=>         ] 1.00 KiB  2.0 KiB/s  00:02");
  EXPECT_EQ(at(19 * 0.125), "[ <=>        ] 1.00 KiB  2.0 KiB/s  00:02");
  EXPECT_EQ(at(kNaN).substr(0, 5), "[<=> ");
  EXPECT_EQ(at(1e300).size(), 41u);
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
