#include "autostreams/stream_ledger.h"

#include <gtest/gtest.h>

#include <vector>

namespace braid {
namespace {

StreamSample Sample(std::uint16_t index, std::uint64_t bytes, std::uint32_t rtt_us = 50000,
                    std::uint32_t min_rtt_us = 0) {
  StreamSample s;
  s.index = index;
  s.bytes = bytes;
  s.rtt_us = rtt_us;
  s.min_rtt_us = min_rtt_us;
  return s;
}

TEST(StreamLedgerTest, TurnsCumulativeCountsIntoDeltas) {
  StreamLedger ledger;
  std::vector<StreamSample> first = {Sample(0, 1000), Sample(3, 5000)};
  // First sight of a stream: no delta yet.
  EXPECT_EQ(ledger.Absorb(first).bytes, 0);
  std::vector<StreamSample> second = {Sample(0, 1500, 40000), Sample(3, 8000, 60000, 30000)};
  const StreamLedger::Interval iv = ledger.Absorb(second);
  EXPECT_EQ(iv.bytes, 3500);
  EXPECT_EQ(iv.stream_bytes[0], 500);
  EXPECT_EQ(iv.stream_bytes[3], 3000);
  EXPECT_DOUBLE_EQ(iv.rtt_us, (40000.0 * 500 + 60000.0 * 3000) / 3500);
  EXPECT_EQ(iv.floor_us, 30000);
}

TEST(StreamLedgerTest, CountsRetransmissionsSinceTheLastCall) {
  StreamLedger ledger;
  std::vector<StreamSample> s = {Sample(0, 1000), Sample(1, 1000)};
  s[0].retrans = 7;  // before the first call: not this interval's
  EXPECT_EQ(ledger.Absorb(s).retrans, 0);
  s[0].retrans = 9;
  s[1].retrans = 1;
  EXPECT_EQ(ledger.Absorb(s).retrans, 3);
  // A restarted stream's counter goes back: nothing, not a wrapped huge number.
  s[0].retrans = 2;
  EXPECT_EQ(ledger.Absorb(s).retrans, 0);
  s[0].retrans = 3;
  EXPECT_EQ(ledger.Absorb(s).retrans, 1);
}

TEST(StreamLedgerTest, RestartedGoneAndOddStreamsCountNothingOnce) {
  StreamLedger ledger;
  ledger.Absorb(std::vector<StreamSample>{Sample(1, 9000), Sample(2, 100)});
  // Stream 1 restarted (its count went back), 2 vanished, 64 is out of range, 1 twice.
  StreamLedger::Interval iv = ledger.Absorb(
      std::vector<StreamSample>{Sample(1, 10), Sample(64, 1u << 30), Sample(1, 99999)});
  EXPECT_EQ(iv.bytes, 0);
  // Stream 2 comes back: it is new again.
  iv = ledger.Absorb(std::vector<StreamSample>{Sample(1, 110), Sample(2, 5000)});
  EXPECT_EQ(iv.bytes, 100);
  EXPECT_EQ(iv.stream_bytes[2], 0);
}

/// Runs `seconds` of 0.2 s calls where stream i sends rates[i] bytes/s, all in one window.
void Feed(StreamLedger& ledger, std::vector<std::uint64_t>& totals,
          const std::vector<double>& rates, double seconds) {
  for (int step = 0; step < static_cast<int>(seconds / 0.2 + 0.5); ++step) {
    std::vector<StreamSample> samples;
    for (std::size_t i = 0; i < rates.size(); ++i) {
      totals[i] += static_cast<std::uint64_t>(rates[i] * 0.2);
      samples.push_back(Sample(static_cast<std::uint16_t>(i), totals[i]));
    }
    const StreamLedger::Interval iv = ledger.Absorb(samples);
    ledger.Age(0.2, iv);
    ledger.AddToWindow(iv);
  }
}

TEST(StreamLedgerTest, SettledRateComesFromStreamsPastTheirBurst) {
  StreamLedger ledger;
  std::vector<std::uint64_t> totals(4, 0);
  // Two streams send for 6 s, then two more join and burst at five times their rate.
  Feed(ledger, totals, {100, 100, 0, 0}, 6);
  EXPECT_NEAR(ledger.CloseWindow(200, 6, 2, 5), 200, 10);  // the first call has no delta
  Feed(ledger, totals, {100, 100, 500, 500}, 2);
  // Measured 1200 B/s; the two mature streams say four settle at 400.
  EXPECT_NEAR(ledger.CloseWindow(1200, 2, 4, 5), 400, 20);
  // Never above what was measured.
  Feed(ledger, totals, {100, 100, 100, 100}, 2);
  EXPECT_NEAR(ledger.CloseWindow(300, 2, 4, 5), 300, 1e-9);
}

TEST(StreamLedgerTest, WithoutMatureStreamsTheWindowBeforeDecides) {
  StreamLedger ledger;
  std::vector<std::uint64_t> totals(2, 0);
  Feed(ledger, totals, {100, 0}, 2);
  // Nobody is mature after 2 s, nor sent in an earlier window: the rate as measured.
  EXPECT_NEAR(ledger.CloseWindow(100, 2, 1, 60), 100, 1e-9);
  Feed(ledger, totals, {100, 300}, 2);
  // Stream 0 sent in the window before: two streams at its rate.
  EXPECT_NEAR(ledger.CloseWindow(400, 2, 2, 60), 200, 10);
}

TEST(StreamLedgerTest, AParkedStreamStartsItsTimeAfresh) {
  StreamLedger ledger;
  std::vector<std::uint64_t> totals(2, 0);
  Feed(ledger, totals, {100, 100}, 6);
  ledger.CloseWindow(200, 6, 2, 5);
  // Stream 1 parked for 2 s, then back in a burst: only stream 0 is mature.
  Feed(ledger, totals, {100, 0}, 2);
  ledger.DiscardWindow();
  Feed(ledger, totals, {100, 400}, 2);
  EXPECT_NEAR(ledger.CloseWindow(500, 2, 2, 5), 200, 10);
}

}  // namespace
}  // namespace braid
