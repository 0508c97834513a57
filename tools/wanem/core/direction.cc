#include "core/direction.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "core/gso_split.h"

namespace wanem {

std::uint64_t DefaultQueueBytes(std::uint64_t rate_bps, std::int64_t rtt_ns) {
  const double bdp = static_cast<double>(rate_bps) / 8 * static_cast<double>(rtt_ns) / 1e9;
  return std::max<std::uint64_t>(static_cast<std::uint64_t>(bdp), 128 * 1024);
}

Direction::Direction(const DirectionConfig& config)
    : config_(config),
      loss_(config.loss, config.seed),
      scheduler_(config.rate_bps, config.queue_bytes,
                 config.classes ? config.shares : ClassShares{0, 0}),
      link_(config.rate_bps),
      delay_(config.delay_ns) {}

void Direction::Ingest(std::vector<std::uint8_t> bytes, std::int64_t now_ns) {
  const FrameInfo info = InspectFrame(bytes);
  Frame frame;
  frame.bytes = std::move(bytes);
  frame.arrival_ns = now_ns;
  frame.wire_bytes = info.wire_bytes;
  frame.first_segment_bytes = info.first_segment_bytes;
  frame.segments = info.segments;
  // The class by marking is always counted (so per-class throughput can be
  // compared with classes off); only with classes on does it pick the queue.
  frame.traffic_class = config_.class_map.Classify(info.tos);
  ++counters_.frames_in;
  counters_.segments_in += info.segments;

  Advance(now_ns);  // the queue as it is now decides drop-tail
  if (loss_.probability() > 0) {
    if (info.segments == 1) {
      if (loss_.Drop()) {
        ++counters_.lost_segments;
        ++counters_.per_class[Index(frame.traffic_class)].lost_segments;
        return;
      }
    } else {
      keep_.assign(info.segments, true);
      std::uint32_t lost = 0;
      for (std::uint32_t i = 0; i < info.segments; ++i) {
        if (loss_.Drop()) {
          keep_[i] = false;
          ++lost;
        }
      }
      if (lost > 0) {
        counters_.lost_segments += lost;
        counters_.per_class[Index(frame.traffic_class)].lost_segments += lost;
        if (!info.splittable) {  // cannot happen for TCP GSO; be safe for others
          ++counters_.unsplittable_drops;
          return;
        }
        ++counters_.gso_splits;
        for (Frame& seg : SplitGso(frame, info, keep_)) {
          Enqueue(std::move(seg), FrameInfo{});
        }
        Advance(now_ns);
        return;
      }
    }
  }
  Enqueue(std::move(frame), info);
  Advance(now_ns);
}

void Direction::Enqueue(Frame frame, const FrameInfo& info) {
  DropTailQueue& queue =
      scheduler_.queue(config_.classes ? frame.traffic_class : TrafficClass::kBestEffort);
  if (queue.Push(frame)) return;
  if (frame.segments > 1 && info.splittable) {
    // Drop-tail at segment granularity: the head of the GSO frame may fit.
    keep_.assign(frame.segments, true);
    ++counters_.gso_splits;
    for (Frame& seg : SplitGso(frame, info, keep_)) {
      if (!queue.Push(seg)) DropTail(seg, 1);
    }
    return;
  }
  DropTail(frame, frame.segments);
}

void Direction::DropTail(const Frame& frame, std::uint32_t segments) {
  counters_.queue_drop_segments += segments;
  counters_.queue_drop_bytes += frame.wire_bytes;
  counters_.per_class[Index(frame.traffic_class)].queue_drop_segments += segments;
}

void Direction::Advance(std::int64_t now_ns) {
  while (!scheduler_.Empty() && link_.free_at() <= now_ns) {
    // A capped class in debt holds its frames back even on an idle link.
    const std::int64_t turn = scheduler_.ReadyAt(link_.free_at());
    if (turn > now_ns) break;
    std::optional<Frame> next = scheduler_.Dequeue(turn);
    if (!next) break;  // cannot happen after ReadyAt; never spin on it
    Frame frame = std::move(*next);
    const std::int64_t start = std::max(turn, frame.arrival_ns);
    const std::int64_t done = link_.Transmit(start, frame.wire_bytes);
    // A GSO frame stands for back-to-back segments: it leaves when its first
    // segment has, and the rest ride along up to one frame time (0.5 ms at
    // 1 Gbit/s) early. Holding it until its last segment instead would add
    // that frame time to every RTT sample TCP takes (2% at 500M / 50 ms).
    // The link stays busy for the whole frame, so the rate is unchanged.
    const std::int64_t departed = std::min(done, start + link_.Duration(frame.first_segment_bytes));
    delay_.Push(std::move(frame), departed);
  }
}

std::int64_t Direction::NextEvent() const {
  std::int64_t next = delay_.NextRelease();
  if (!scheduler_.Empty()) next = std::min(next, scheduler_.ReadyAt(link_.free_at()));
  return next;
}

void Direction::NoteRelease(const Frame& frame, std::int64_t now_ns, bool written) {
  if (!written) {
    ++counters_.write_errors;
    return;
  }
  const std::int64_t late = std::max<std::int64_t>(0, now_ns - frame.release_ns);
  ++counters_.delivered_frames;
  counters_.delivered_segments += frame.segments;
  counters_.delivered_bytes += frame.wire_bytes;
  ClassCounters& cls = counters_.per_class[Index(frame.traffic_class)];
  cls.delivered_bytes += frame.wire_bytes;
  cls.delivered_segments += frame.segments;
  counters_.total_lateness_ns += late;
  counters_.max_lateness_ns = std::max(counters_.max_lateness_ns, late);
  if (late > config_.late_threshold_ns) ++counters_.late_releases;
}

}  // namespace wanem
