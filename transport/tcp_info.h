#pragma once
/// TCP_INFO samples of a data socket: what the kernel knows about a stream's
/// RTT, congestion window, loss and delivery rate. Reports and the stream
/// controller read these instead of guessing from byte counts.

#include <cstdint>
#include <optional>

namespace braid {

struct TcpSample {
  std::uint32_t rtt_us = 0;             ///< smoothed RTT
  std::uint32_t min_rtt_us = 0;         ///< the kernel's windowed minimum; 0 if unknown
  std::uint32_t cwnd = 0;               ///< congestion window, in segments
  std::uint32_t total_retrans = 0;      ///< segments retransmitted over the connection's life
  std::uint64_t delivery_rate_Bps = 0;  ///< the kernel's most recent delivery-rate estimate
  std::uint64_t bytes_acked = 0;        ///< payload bytes the peer has acknowledged
};

/// getsockopt(TCP_INFO) on `fd`; nullopt if it is not a TCP socket or is closed.
/// Fields an older kernel does not report stay 0.
std::optional<TcpSample> SampleTcpInfo(int fd);

}  // namespace braid
