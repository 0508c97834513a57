#pragma once
/// Socket options for data streams, applied before connect/listen so that
/// buffer sizes take part in TCP window-scale negotiation.

#include <cstdint>
#include <string>

namespace braid {

struct SocketTuning {
  std::uint64_t window = 0;  ///< SO_SNDBUF/SO_RCVBUF; 0 keeps kernel autotuning
};

/// Applies what it can; returns a warning for what the kernel refused (empty if none).
std::string ApplySocketTuning(int fd, const SocketTuning& tuning);

}  // namespace braid
