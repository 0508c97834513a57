#include "core/link.h"

#include <algorithm>

namespace wanem {

std::int64_t Link::Transmit(std::int64_t earliest, std::uint64_t wire_bytes) {
  if (earliest > free_at_) {
    free_at_ = earliest;
    remainder_ = 0;  // an idle link restarts on a whole nanosecond
  }
  if (rate_bps_ == 0) return free_at_;
  // wire_bytes * 8e9 fits easily in 64 bits for any frame (< 2^17 bytes).
  const std::uint64_t scaled = wire_bytes * 8'000'000'000ull + remainder_;
  free_at_ += static_cast<std::int64_t>(scaled / rate_bps_);
  remainder_ = scaled % rate_bps_;
  return free_at_;
}

}  // namespace wanem
