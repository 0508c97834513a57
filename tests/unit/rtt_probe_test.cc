// The probes a chain is ordered by, on 127.0.0.1: a listener that answers
// connects, and the time of a connect to it.

#include "transport/rtt_probe.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>

#include "braid/error.h"
#include "thrown_code.h"

namespace braid {
namespace {

using std::chrono::milliseconds;

TEST(RttProbeTest, AConnectToAListenerTakesATimeAndItsPortIsKept) {
  ProbeListener listener("127.0.0.1");
  ASSERT_NE(listener.port(), 0);
  const std::uint32_t us = MeasureConnectRtt({"127.0.0.1"}, listener.port(), 3, milliseconds(500));
  EXPECT_GT(us, 0u);
  EXPECT_LT(us, 500000u);
  // Many connects in a row: each is answered, none waits on an accept queue.
  for (int i = 0; i < 50; ++i) {
    ASSERT_GT(MeasureConnectRtt({"127.0.0.1"}, listener.port(), 1, milliseconds(500)), 0u) << i;
  }
}

TEST(RttProbeTest, ANameIsNeverLookedUpAndTheNextAddressIsTried) {
  ProbeListener listener("127.0.0.1");
  EXPECT_EQ(MeasureConnectRtt({"localhost"}, listener.port(), 1, milliseconds(200)), 0u);
  EXPECT_GT(MeasureConnectRtt({"localhost", "127.0.0.1"}, listener.port(), 1, milliseconds(500)),
            0u);
}

TEST(RttProbeTest, APortNobodyListensOnIsNoTime) {
  std::uint16_t closed = 0;
  {
    ProbeListener gone("127.0.0.1");
    closed = gone.port();
  }
  EXPECT_EQ(MeasureConnectRtt({"127.0.0.1"}, closed, 3, milliseconds(200)), 0u);
}

TEST(RttProbeTest, ARangeIsKeptToAndOneThatIsBusyIsRefused) {
  ProbeListener first("127.0.0.1");
  const std::uint16_t taken = first.port();
  // A range of the one port already taken: nothing free.
  EXPECT_EQ(ThrownCode([&] { ProbeListener busy("127.0.0.1", taken, taken); }),
            ErrorCode::kDataConnect);
  // A range around it: the free one is found.
  const auto low = static_cast<std::uint16_t>(taken > 1024 ? taken - 1 : taken);
  const auto high = static_cast<std::uint16_t>(taken < 65535 ? taken + 1 : taken);
  if (low != taken || high != taken) {
    std::unique_ptr<ProbeListener> beside;
    try {
      beside = std::make_unique<ProbeListener>("127.0.0.1", low, high);
    } catch (const BraidError&) {
      GTEST_SKIP() << "both neighbours of port " << taken << " are busy on this machine";
    }
    EXPECT_NE(beside->port(), taken);
    EXPECT_GE(beside->port(), low);
    EXPECT_LE(beside->port(), high);
  }
  EXPECT_EQ(ThrownCode([] { ProbeListener bad("not-an-address"); }), ErrorCode::kDataConnect);
}

}  // namespace
}  // namespace braid
