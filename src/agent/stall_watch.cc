#include "agent/stall_watch.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace braid {
namespace {

std::string Seconds(StallWatch::Clock::duration d) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f s", std::chrono::duration<double>(d).count());
  return text;
}

}  // namespace

StallWatch::StallWatch(Clock::duration timeout, Clock::time_point now,
                       std::array<std::string, 2> names, bool source_may_pause)
    : timeout_(timeout),
      last_progress_(now),
      names_(std::move(names)),
      source_may_pause_(source_may_pause) {
  for (EndState& e : ends_) e.last_message = now;
}

void StallWatch::OnMessage(int end, Clock::time_point now) {
  ends_.at(static_cast<std::size_t>(end)).last_message = now;
}

void StallWatch::OnProgress(int end, std::uint64_t bytes, std::uint64_t files,
                            Clock::time_point now) {
  EndState& e = ends_.at(static_cast<std::size_t>(end));
  e.last_message = now;
  if (end == 1 && (bytes != e.bytes || files != e.files)) last_progress_ = now;
  e.bytes = bytes;
  e.files = files;
}

void StallWatch::OnDone(int end) { ends_.at(static_cast<std::size_t>(end)).done = true; }

bool StallWatch::Silent(int end, Clock::time_point now) const {
  const EndState& e = ends_.at(static_cast<std::size_t>(end));
  return !e.done && now - e.last_message >= kSilentAfter;
}

std::optional<std::string> StallWatch::Check(Clock::time_point now) const {
  const Clock::duration idle = now - last_progress_;
  if (idle < timeout_) return std::nullopt;
  const bool source_silent = Silent(0, now);
  const bool sink_silent = Silent(1, now);
  std::string why;
  if (source_silent && sink_silent) {
    why = "neither " + names_[0] + " nor " + names_[1] + " has reported for " +
          Seconds(now - std::max(ends_[0].last_message, ends_[1].last_message)) +
          " (both stopped, or the agent's own connections hang?)";
  } else if (source_silent || sink_silent) {
    const std::size_t end = sink_silent ? 1 : 0;
    why = names_[end] + " has sent nothing for " + Seconds(now - ends_[end].last_message) +
          " (stopped, hung, or its host overloaded?)";
  } else if (source_may_pause_) {
    return std::nullopt;  // the producer feeding the source may just be quiet
  } else {
    why = "both ends report, but no data reaches " + names_[1] +
          " (a firewall, or a dead network path between source and sink?)";
  }
  // The agent's last line then says what was kept and that a re-run resumes.
  return "transfer stalled: no progress for " + Seconds(idle) + ": " + why;
}

}  // namespace braid
