#include "io/event_loop.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/counters_format.h"
#include "core/frame.h"
#include "io/sys_error.h"

namespace wanem {
namespace {

std::int64_t Now(clockid_t clock = CLOCK_MONOTONIC) {
  timespec ts;
  ::clock_gettime(clock, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

/// The largest frame TUN can hand us: a 64 KiB GSO packet plus the vnet header.
constexpr std::size_t kMaxFrame = 65535 + kVnetHeaderSize + 64;

enum Tag : std::uint64_t { kTunA, kTunB, kTimer, kSignal };

void Watch(int epoll_fd, int fd, Tag tag, const std::string& what) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = tag;
  if (::epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev) != 0) ThrowErrno("epoll_ctl add " + what);
}

}  // namespace

EventLoop::EventLoop(TunDevice& a, TunDevice& b, Direction& ab, Direction& ba, LoopOptions options)
    : a_(a), b_(b), ab_(ab), ba_(ba), options_(std::move(options)) {
  // Timers fire when asked, not up to 50 us later: the default slack alone
  // would be 0.1% of a 50 ms RTT.
  if (::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL) != 0) ThrowErrno("prctl(PR_SET_TIMERSLACK)");
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGUSR1, SIGHUP}) sigaddset(&signals, s);
  if (::sigprocmask(SIG_BLOCK, &signals, nullptr) != 0) ThrowErrno("sigprocmask");
  signal_fd_ = ::signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd_ < 0) ThrowErrno("signalfd");
  timer_fd_ = ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd_ < 0) ThrowErrno("timerfd_create(CLOCK_MONOTONIC)");
  epoll_fd_ = ::epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd_ < 0) ThrowErrno("epoll_create1");
  Watch(epoll_fd_, a_.fd(), kTunA, a_.label());
  Watch(epoll_fd_, b_.fd(), kTunB, b_.label());
  Watch(epoll_fd_, timer_fd_, kTimer, "timerfd");
  Watch(epoll_fd_, signal_fd_, kSignal, "signalfd");
  if (!options_.stats_csv.empty()) {
    stats_ = std::fopen(options_.stats_csv.c_str(), "w");
    if (stats_ == nullptr) ThrowErrno("open stats CSV " + options_.stats_csv);
    const std::string_view header = CsvHeader();
    std::fwrite(header.data(), 1, header.size(), stats_);
    std::fflush(stats_);
  }
}

EventLoop::~EventLoop() {
  if (stats_ != nullptr) std::fclose(stats_);
  for (int fd : {epoll_fd_, timer_fd_, signal_fd_}) {
    if (fd >= 0) ::close(fd);
  }
}

void EventLoop::ReadBatch(TunDevice& from, Direction& direction) {
  static std::array<std::uint8_t, kMaxFrame> scratch;
  for (int i = 0; i < options_.batch; ++i) {
    const std::size_t n = from.Read(scratch);
    if (n == 0) return;
    // Copy out at the frame's own size: queues hold many small ACKs, and
    // 64 KiB slots for them would waste tens of megabytes.
    direction.Ingest(std::vector<std::uint8_t>(scratch.begin(),
                                               scratch.begin() + static_cast<std::ptrdiff_t>(n)),
                     Now());
  }
}

void EventLoop::ArmTimer(std::int64_t deadline_ns) {
  if (deadline_ns == armed_ns_) return;
  itimerspec spec{};
  if (deadline_ns != kNever) {
    const std::int64_t at = std::max<std::int64_t>(deadline_ns, 1);
    spec.it_value.tv_sec = at / 1'000'000'000;
    spec.it_value.tv_nsec = at % 1'000'000'000;
  }
  if (::timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &spec, nullptr) != 0) {
    ThrowErrno("timerfd_settime");
  }
  armed_ns_ = deadline_ns;
}

void EventLoop::PrintCounters() {
  const std::int64_t elapsed = Now() - start_ns_;
  const bool classes = true;  // per marking, even when the scheduler ignores it
  std::string text = FormatCounters("wanem a->b", ab_.counters(), classes, elapsed);
  text += FormatCounters("wanem b->a", ba_.counters(), classes, elapsed);
  char line[200];
  std::snprintf(
      line, sizeof line,
      "wanem loop: max timer wake-up delay %.1f us, longest pass %.1f us, busy %.1f%%\n",
      static_cast<double>(max_wake_delay_ns_) / 1e3, static_cast<double>(max_pass_ns_) / 1e3,
      elapsed > 0 ? 100.0 * static_cast<double>(busy_ns_) / static_cast<double>(elapsed) : 0.0);
  text += line;
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

void EventLoop::WriteStats(std::int64_t now_ns) {
  if (stats_ == nullptr || now_ns < next_stats_ns_) return;
  const std::int64_t interval = options_.stats_interval_ns;
  const double wall = static_cast<double>(Now(CLOCK_REALTIME)) / 1e9;
  std::string rows = FormatCsvRows(wall, "ab", ab_.counters(), last_ab_, interval);
  rows += FormatCsvRows(wall, "ba", ba_.counters(), last_ba_, interval);
  std::fwrite(rows.data(), 1, rows.size(), stats_);
  std::fflush(stats_);
  last_ab_ = ab_.counters();
  last_ba_ = ba_.counters();
  next_stats_ns_ += interval;
  if (next_stats_ns_ <= now_ns) next_stats_ns_ = now_ns + interval;  // after a stall
}

bool EventLoop::HandleSignal() {
  signalfd_siginfo info;
  bool keep_running = true;
  while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    if (info.ssi_signo == SIGUSR1) {
      PrintCounters();
    } else {
      keep_running = false;
    }
  }
  return keep_running;
}

void EventLoop::Run() {
  start_ns_ = Now();
  next_stats_ns_ = start_ns_ + options_.stats_interval_ns;
  auto write_to = [this](TunDevice& device) {
    return [this, &device](const Frame& frame) {
      if (device.Write(frame.bytes)) return true;
      if (write_errors_reported_ < 5) {
        ++write_errors_reported_;
        std::fprintf(stderr, "wanem: write of %zu bytes to %s failed: %s\n", frame.bytes.size(),
                     device.label().c_str(), std::strerror(errno));
      }
      return false;
    };
  };
  auto to_b = write_to(b_);
  auto to_a = write_to(a_);

  std::array<epoll_event, 8> events;
  for (;;) {
    const int n = ::epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      ThrowErrno("epoll_wait");
    }
    const std::int64_t woke = Now();
    bool stop = false;
    for (int i = 0; i < n; ++i) {
      switch (events[static_cast<std::size_t>(i)].data.u64) {
        case kTunA:
          ReadBatch(a_, ab_);
          break;
        case kTunB:
          ReadBatch(b_, ba_);
          break;
        case kTimer: {
          std::uint64_t expirations;
          (void)!::read(timer_fd_, &expirations, sizeof expirations);
          if (armed_ns_ > 0) max_wake_delay_ns_ = std::max(max_wake_delay_ns_, woke - armed_ns_);
          armed_ns_ = -1;  // one-shot: it fired
          break;
        }
        case kSignal:
          stop = !HandleSignal();
          break;
      }
    }
    if (stop) break;

    std::int64_t next = std::min(ab_.NextEvent(), ba_.NextEvent());
    std::int64_t now = Now();
    // The timer woke us spin_ns early on purpose: spin the rest of the way.
    while (options_.spin_ns > 0 && next > now && next - now <= options_.spin_ns) now = Now();
    ab_.Advance(now);
    ba_.Advance(now);
    ab_.Release(now, to_b);
    ba_.Release(now, to_a);
    WriteStats(now);

    next = std::min(ab_.NextEvent(), ba_.NextEvent());
    if (stats_ != nullptr) next = std::min(next, next_stats_ns_);
    ArmTimer(next == kNever ? kNever : next - options_.spin_ns);
    const std::int64_t pass = Now() - woke;
    busy_ns_ += pass;
    max_pass_ns_ = std::max(max_pass_ns_, pass);
  }
  PrintCounters();
}

}  // namespace wanem
