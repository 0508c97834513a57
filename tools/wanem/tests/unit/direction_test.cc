#include "core/direction.h"

#include <gtest/gtest.h>

#include <vector>

#include "frame_builder.h"

namespace wanem {
namespace {

using test::BuildTcpFrame;
using test::TcpFrameSpec;

std::vector<std::uint8_t> Packet(std::size_t payload, std::uint8_t tos = 0, std::uint16_t gso = 0) {
  TcpFrameSpec spec;
  spec.payload = payload;
  spec.tos = tos;
  spec.gso_size = gso;
  return BuildTcpFrame(spec);
}

struct Released {
  std::int64_t at;
  std::size_t size;
};

TEST(Direction, DelayPlusSerialisation) {
  DirectionConfig c;
  c.rate_bps = 100'000'000;  // 1500 wire bytes = 120 us
  c.delay_ns = 10'000'000;
  Direction d(c);
  d.Ingest(Packet(1448), 0);  // 1500 IP bytes with 32 bytes of TCP header
  d.Ingest(Packet(1448), 0);
  std::vector<Released> out;
  auto sink = [&](std::int64_t now) {
    d.Advance(now);
    d.Release(now, [&](const Frame& f) {
      out.push_back({now, f.bytes.size()});
      return true;
    });
  };
  EXPECT_EQ(d.NextEvent(), 120'000);  // the second frame's turn on the link
  sink(120'000);
  EXPECT_EQ(d.NextEvent(), 10'120'000);  // the first frame's release
  sink(10'119'999);
  EXPECT_TRUE(out.empty());
  sink(10'120'000);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(d.NextEvent(), 10'240'000);
  sink(10'240'050);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(d.counters().delivered_frames, 2u);
  EXPECT_EQ(d.counters().max_lateness_ns, 50);
  EXPECT_EQ(d.NextEvent(), kNever);
}

TEST(Direction, GsoFrameLeavesWithItsFirstSegment) {
  DirectionConfig c;
  c.rate_bps = 100'000'000;  // 1500 wire bytes = 120 us
  c.delay_ns = 10'000'000;
  Direction d(c);
  d.Ingest(Packet(10 * 1448, 0, 1448), 0);  // 10 segments, 15000 wire bytes
  d.Ingest(Packet(1448), 0);
  // The frame's first segment is out after 120 us; the link is busy 1.2 ms.
  EXPECT_EQ(d.NextEvent(), 1'200'000);
  d.Advance(1'200'000);
  EXPECT_EQ(d.NextEvent(), 10'120'000);
  std::vector<std::int64_t> releases;
  for (std::int64_t t : {10'120'000, 11'320'000}) {
    d.Release(t, [&](const Frame&) {
      releases.push_back(t);
      return true;
    });
  }
  ASSERT_EQ(releases.size(), 2u);
  EXPECT_EQ(d.counters().delivered_segments, 11u);
}

TEST(Direction, QueueOverflowDropsTheTail) {
  DirectionConfig c;
  c.rate_bps = 1'000'000;
  c.queue_bytes = 3000;
  Direction d(c);
  for (int i = 0; i < 5; ++i) d.Ingest(Packet(1448), 0);
  // One on the wire, two queued, two dropped.
  EXPECT_EQ(d.counters().queue_drop_segments, 2u);
  EXPECT_EQ(d.queued_bytes(), 3000u);
}

TEST(Direction, GsoFrameOverflowKeepsTheSegmentsThatFit) {
  DirectionConfig c;
  c.rate_bps = 1'000'000;
  c.queue_bytes = 152 + 4 * 1500;
  Direction d(c);
  d.Ingest(Packet(100), 0);                 // 152 wire bytes: occupies the link
  d.Ingest(Packet(100), 0);                 // waits in the queue
  d.Ingest(Packet(10 * 1448, 0, 1448), 0);  // 10 segments of 1500 wire bytes
  EXPECT_EQ(d.counters().gso_splits, 1u);
  EXPECT_EQ(d.counters().queue_drop_segments, 6u);
  EXPECT_EQ(d.queued_bytes(), 152u + 4 * 1500);
}

TEST(Direction, LossSplitsGsoFramesAndCountsSegments) {
  DirectionConfig c;
  c.loss = 0.01;
  c.seed = 3;
  Direction d(c);
  std::uint64_t written_segments = 0;
  for (int i = 0; i < 5'000; ++i) {
    d.Ingest(Packet(44 * 1448, 0, 1448), i);
    d.Release(i, [&](const Frame& f) {
      const FrameInfo info = InspectFrame(f.bytes);
      written_segments += info.segments;
      return true;
    });
  }
  const auto& k = d.counters();
  EXPECT_EQ(k.segments_in, 5'000u * 44);
  EXPECT_EQ(k.lost_segments + k.delivered_segments, k.segments_in);
  EXPECT_EQ(written_segments, k.delivered_segments);
  EXPECT_NEAR(static_cast<double>(k.lost_segments) / static_cast<double>(k.segments_in), 0.01,
              0.001);
  EXPECT_GT(k.gso_splits, 0u);
  EXPECT_LT(k.gso_splits, 5'000u);  // untouched frames stay whole
}

TEST(Direction, ClassesSortByTos) {
  DirectionConfig c;
  c.classes = true;
  Direction d(c);
  d.Ingest(Packet(100, 0x20), 0);
  d.Ingest(Packet(100, 0x28), 0);
  d.Ingest(Packet(100, 0x00), 0);
  d.Release(0, [](const Frame&) { return true; });
  const auto& k = d.counters();
  EXPECT_GT(k.per_class[Index(TrafficClass::kScavenger)].delivered_bytes, 0u);
  EXPECT_GT(k.per_class[Index(TrafficClass::kPriority)].delivered_bytes, 0u);
  EXPECT_GT(k.per_class[Index(TrafficClass::kBestEffort)].delivered_bytes, 0u);
}

TEST(Direction, WithoutClassesOneFifoButCountersByMarking) {
  DirectionConfig c;
  c.rate_bps = 1'000'000;
  c.queue_bytes = 1 << 20;
  Direction d(c);
  d.Ingest(Packet(100, 0x00), 0);  // on the link
  d.Ingest(Packet(100, 0x20), 0);  // queued first
  d.Ingest(Packet(100, 0x28), 0);  // would jump the queue with classes on
  std::vector<TrafficClass> order;
  for (std::int64_t t = 0; t < 10'000'000; t += 100'000) {
    d.Advance(t);
    d.Release(t, [&](const Frame& f) {
      order.push_back(f.traffic_class);
      return true;
    });
  }
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[1], TrafficClass::kScavenger);  // FIFO: marking ignored
  EXPECT_EQ(order[2], TrafficClass::kPriority);
  EXPECT_GT(d.counters().per_class[Index(TrafficClass::kScavenger)].delivered_bytes, 0u);
}

TEST(Direction, CappedClassIsShapedNotDropped) {
  DirectionConfig c;
  c.rate_bps = 100'000'000;  // 1500 wire bytes = 120 us
  c.classes = true;
  c.shares.cap[Index(TrafficClass::kPriority)] = 0.5;  // 50 Mbit/s, a 62.5 KB bucket
  Direction d(c);
  for (int i = 0; i < 400; ++i) d.Ingest(Packet(1448, 0x28), 0);
  std::int64_t last = 0;
  for (std::int64_t now = d.NextEvent(); now != kNever; now = d.NextEvent()) {
    d.Advance(now);
    d.Release(now, [&](const Frame&) {
      last = now;
      return true;
    });
  }
  EXPECT_EQ(d.counters().delivered_frames, 400u);  // waited, none dropped
  EXPECT_EQ(d.counters().queue_drop_segments, 0u);
  // 600 KB at 50 Mbit/s is 96 ms, less the bucket's 10 ms head start; the
  // uncapped link would be done in 48 ms.
  EXPECT_GT(last, 84'000'000);
  EXPECT_LT(last, 90'000'000);
}

TEST(Direction, DefaultQueueIsOneBdp) {
  EXPECT_EQ(DefaultQueueBytes(1'000'000'000, 50'000'000), 6'250'000u);
  EXPECT_EQ(DefaultQueueBytes(1'000'000, 1'000'000), 128u * 1024);
}

}  // namespace
}  // namespace wanem
