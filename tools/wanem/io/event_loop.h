#pragma once
/// The single-threaded loop that moves frames between the two TUN devices:
/// epoll on both devices, a timerfd for the next release or link slot, and a
/// signalfd for SIGUSR1 (print counters) and SIGINT/SIGTERM (print and stop).

#include <cstdint>
#include <string>

#include "core/direction.h"
#include "io/tun_device.h"

namespace wanem {

struct LoopOptions {
  int batch = 64;            ///< frames read per device per wakeup
  std::int64_t spin_ns = 0;  ///< wake this early and spin to the deadline
  std::string stats_csv;     ///< per-class bytes per interval, if set
  std::int64_t stats_interval_ns = 1'000'000'000;
};

class EventLoop {
 public:
  /// `ab` carries frames read on `a` to `b`, `ba` the reverse.
  EventLoop(TunDevice& a, TunDevice& b, Direction& ab, Direction& ba, LoopOptions options);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  /// Runs until SIGINT or SIGTERM; then prints the counters and returns.
  void Run();

 private:
  void ReadBatch(TunDevice& from, Direction& direction);
  void ArmTimer(std::int64_t deadline_ns);
  void PrintCounters();
  void WriteStats(std::int64_t now_ns);
  bool HandleSignal();  ///< false when told to stop

  TunDevice& a_;
  TunDevice& b_;
  Direction& ab_;
  Direction& ba_;
  LoopOptions options_;
  int epoll_fd_ = -1;
  int timer_fd_ = -1;
  int signal_fd_ = -1;
  std::int64_t armed_ns_ = -1;
  std::int64_t start_ns_ = 0;
  std::int64_t next_stats_ns_ = 0;
  std::FILE* stats_ = nullptr;
  DirectionCounters last_ab_, last_ba_;
  int write_errors_reported_ = 0;
  // Where lateness comes from: waking late, or one pass taking long (the
  // kernel runs both hosts' TCP inside our TUN reads and writes).
  std::int64_t max_wake_delay_ns_ = 0;  ///< timer expiry to our running
  std::int64_t max_pass_ns_ = 0;        ///< one loop pass, wakeup to sleep
  std::int64_t busy_ns_ = 0;            ///< total time spent in passes
};

}  // namespace wanem
