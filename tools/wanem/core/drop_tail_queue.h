#pragma once
/// A FIFO bounded in bytes that refuses what does not fit: the bottleneck
/// router's buffer. Bytes are wire bytes, so a 64 KiB GSO frame counts as the
/// segments it stands for.

#include <cstdint>
#include <deque>

#include "core/frame.h"

namespace wanem {

class DropTailQueue {
 public:
  explicit DropTailQueue(std::uint64_t limit_bytes) : limit_(limit_bytes) {}

  /// An empty queue takes any frame, so a limit below one frame still passes
  /// traffic (as a router always has room for the packet it is sending).
  bool Fits(std::uint64_t wire_bytes) const {
    return frames_.empty() || bytes_ + wire_bytes <= limit_;
  }
  /// False (and the frame untouched) when it does not fit.
  bool Push(Frame& frame);
  Frame Pop();
  const Frame& Front() const { return frames_.front(); }

  bool empty() const { return frames_.empty(); }
  std::size_t size() const { return frames_.size(); }
  std::uint64_t bytes() const { return bytes_; }
  std::uint64_t limit() const { return limit_; }

 private:
  std::deque<Frame> frames_;
  std::uint64_t bytes_ = 0;
  std::uint64_t limit_;
};

}  // namespace wanem
