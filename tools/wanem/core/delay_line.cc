#include "core/delay_line.h"

#include <algorithm>
#include <utility>

namespace wanem {

void DelayLine::Push(Frame frame, std::int64_t departed_ns) {
  frame.release_ns = std::max(departed_ns + delay_ns_, last_release_);
  last_release_ = frame.release_ns;
  bytes_ += frame.wire_bytes;
  frames_.push_back(std::move(frame));
}

Frame DelayLine::Pop() {
  Frame frame = std::move(frames_.front());
  frames_.pop_front();
  bytes_ -= frame.wire_bytes;
  return frame;
}

}  // namespace wanem
