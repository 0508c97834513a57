#include "agent/report/progress_display.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>

#include "agent/report/console.h"

namespace braid {
namespace {

int TerminalWidth() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

/// The bar is redrawn at this period; faster only costs terminal bandwidth.
constexpr double kBarPeriod = 0.25;

}  // namespace

ProgressDisplay::ProgressDisplay(double interval_s, std::optional<std::uint64_t> total,
                                 std::uint64_t files)
    : interval_s_(interval_s), total_(total), files_(files) {
  if (interval_s > 0) {
    mode_ = Mode::kLines;
  } else if (interval_s < 0) {
    mode_ = Mode::kSilent;
  } else {
    mode_ = ::isatty(STDERR_FILENO) ? Mode::kBar : Mode::kSilent;
  }
  next_s_ = mode_ == Mode::kLines ? interval_s : 0;
  meter_.Add(0, 0);  // the data starts now, as the summary counts it
}

void ProgressDisplay::Update(double now_s, std::uint64_t bytes, std::uint64_t files_done,
                             const std::string& current_file) {
  meter_.Add(now_s, bytes);
  if (mode_ == Mode::kSilent || now_s < next_s_) return;
  ProgressSnapshot snap;
  snap.bytes_done = bytes;
  snap.bytes_total = total_;
  snap.elapsed_s = meter_.ElapsedSeconds();
  snap.current_rate_Bps = meter_.CurrentRate();
  snap.average_rate_Bps = meter_.AverageRate();
  snap.files_done = files_done;
  snap.files_total = files_;
  snap.current_file = current_file;
  if (mode_ == Mode::kLines) {
    WriteLine(stderr, FormatProgressLine(snap));
    next_s_ += interval_s_;
    if (next_s_ < now_s) next_s_ = now_s + interval_s_;
  } else {
    int width = TerminalWidth() - 1;
    WriteBar(stderr, FormatProgressBar(snap, width));
    drawn_ = true;
    next_s_ = now_s + kBarPeriod;
  }
  std::fflush(stderr);
}

void ProgressDisplay::Complete(double now_s, std::uint64_t bytes, std::uint64_t files_done) {
  next_s_ = 0;  // draw now, whatever the period
  if (mode_ == Mode::kBar || (mode_ == Mode::kLines && now_s >= interval_s_)) {
    Update(now_s, bytes, files_done, "");
  }
  Finish();
}

void ProgressDisplay::Finish() {
  if (mode_ == Mode::kBar && drawn_) {
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
  drawn_ = false;
}

}  // namespace braid
