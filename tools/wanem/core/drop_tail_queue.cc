#include "core/drop_tail_queue.h"

#include <utility>

namespace wanem {

bool DropTailQueue::Push(Frame& frame) {
  if (!Fits(frame.wire_bytes)) return false;
  bytes_ += frame.wire_bytes;
  frames_.push_back(std::move(frame));
  return true;
}

Frame DropTailQueue::Pop() {
  Frame frame = std::move(frames_.front());
  frames_.pop_front();
  bytes_ -= frame.wire_bytes;
  return frame;
}

}  // namespace wanem
