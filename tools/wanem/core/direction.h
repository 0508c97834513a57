#pragma once
/// One direction of the emulated path, A->B or B->A, as pure logic: frames
/// come in with a time, go through the loss decision, the class queues, the
/// bottleneck and the delay line, and come out when due. The IO layer only
/// reads, writes and keeps time, so everything here is tested without a TUN.

#include <array>
#include <cstdint>
#include <vector>

#include "core/class_scheduler.h"
#include "core/delay_line.h"
#include "core/frame.h"
#include "core/link.h"
#include "core/loss_model.h"
#include "core/traffic_class.h"

namespace wanem {

struct DirectionConfig {
  std::uint64_t rate_bps = 0;           ///< 0 = unlimited
  std::int64_t delay_ns = 0;            ///< one way
  std::uint64_t queue_bytes = 1 << 20;  ///< per class queue
  double loss = 0;                      ///< per segment
  bool classes = false;    ///< sort by DSCP into the class queues (counters are per class always)
  ClassShares shares;      ///< only with classes
  ClassMap class_map;      ///< only with classes
  std::uint64_t seed = 1;  ///< loss RNG
  std::int64_t late_threshold_ns = 100'000;  ///< a release later than this is "late"
};

/// The default queue: one bandwidth-delay product, at least 128 KiB so a
/// couple of 64 KiB GSO frames always fit.
std::uint64_t DefaultQueueBytes(std::uint64_t rate_bps, std::int64_t rtt_ns);

struct ClassCounters {
  std::uint64_t delivered_bytes = 0;
  std::uint64_t delivered_segments = 0;
  std::uint64_t queue_drop_segments = 0;
  std::uint64_t lost_segments = 0;
};

struct DirectionCounters {
  std::uint64_t frames_in = 0;
  std::uint64_t segments_in = 0;
  std::uint64_t delivered_frames = 0;
  std::uint64_t delivered_segments = 0;
  std::uint64_t delivered_bytes = 0;  ///< wire (IP) bytes
  std::uint64_t lost_segments = 0;    ///< random loss
  std::uint64_t queue_drop_segments = 0;
  std::uint64_t queue_drop_bytes = 0;
  std::uint64_t gso_splits = 0;          ///< GSO frames cut up for loss or drop-tail
  std::uint64_t unsplittable_drops = 0;  ///< GSO frames we could not cut, dropped whole
  std::uint64_t write_errors = 0;
  std::uint64_t late_releases = 0;  ///< released later than late_threshold_ns
  std::int64_t max_lateness_ns = 0;
  std::int64_t total_lateness_ns = 0;  ///< over delivered_frames, for the mean
  std::array<ClassCounters, kClassCount> per_class{};
};

class Direction {
 public:
  explicit Direction(const DirectionConfig& config);

  /// A frame read at `now_ns`: loss, then queue (or drop-tail), then the link.
  void Ingest(std::vector<std::uint8_t> bytes, std::int64_t now_ns);

  /// Starts every frame whose turn on the link has come by `now_ns` and puts it
  /// into the delay line.
  void Advance(std::int64_t now_ns);

  /// Hands each frame due at `now_ns` to `write` (returns false on failure) and
  /// counts it, with how late it is.
  template <typename Write>
  void Release(std::int64_t now_ns, Write&& write) {
    while (delay_.Due(now_ns)) {
      Frame frame = delay_.Pop();
      NoteRelease(frame, now_ns, write(frame));
    }
  }

  /// The next time something happens without new input; kNever if idle.
  std::int64_t NextEvent() const;

  const DirectionCounters& counters() const { return counters_; }
  const DirectionConfig& config() const { return config_; }
  std::uint64_t queued_bytes() const { return scheduler_.QueuedBytes(); }
  std::uint64_t in_flight_bytes() const { return delay_.bytes(); }

 private:
  void Enqueue(Frame frame, const FrameInfo& info);
  void DropTail(const Frame& frame, std::uint32_t segments);
  void NoteRelease(const Frame& frame, std::int64_t now_ns, bool written);

  DirectionConfig config_;
  LossModel loss_;
  ClassScheduler scheduler_;
  Link link_;
  DelayLine delay_;
  DirectionCounters counters_;
  std::vector<bool> keep_;  ///< reused per GSO frame
};

}  // namespace wanem
