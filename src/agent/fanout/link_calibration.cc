#include "agent/fanout/link_calibration.h"

namespace braid {

void LinkCalibration::Add(double now_s, std::uint64_t bytes) {
  if (link_Bps_ || now_s < last_s_ || bytes < last_bytes_) return;
  last_s_ = now_s;
  last_bytes_ = bytes;
  if (!first_byte_s_) {
    if (bytes > 0) first_byte_s_ = now_s;
    return;
  }
  if (!from_s_) {
    if (now_s - *first_byte_s_ < kSkipSeconds) return;
    from_s_ = now_s;
    from_bytes_ = bytes;
    return;
  }
  const double seconds = now_s - *from_s_;
  if (seconds < kMeasureSeconds) return;
  link_Bps_ = static_cast<double>(bytes - from_bytes_) / seconds;
}

}  // namespace braid
