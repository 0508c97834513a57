#include "transport/tcp_info.h"

// linux/tcp.h, not netinet/tcp.h: glibc's struct tcp_info stops before
// tcpi_min_rtt and tcpi_delivery_rate.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace braid {

std::optional<TcpSample> SampleTcpInfo(int fd) {
  tcp_info info{};
  socklen_t len = sizeof info;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return std::nullopt;
  // The kernel copies min(len, its own size): fields past `len` were not
  // written and are still zero, which callers read as "unknown".
  auto has = [len](std::size_t offset, std::size_t size) { return offset + size <= len; };
  TcpSample s;
  if (has(offsetof(tcp_info, tcpi_rtt), sizeof info.tcpi_rtt)) s.rtt_us = info.tcpi_rtt;
  if (has(offsetof(tcp_info, tcpi_snd_cwnd), sizeof info.tcpi_snd_cwnd)) {
    s.cwnd = info.tcpi_snd_cwnd;
  }
  if (has(offsetof(tcp_info, tcpi_total_retrans), sizeof info.tcpi_total_retrans)) {
    s.total_retrans = info.tcpi_total_retrans;
  }
  if (has(offsetof(tcp_info, tcpi_bytes_acked), sizeof info.tcpi_bytes_acked)) {
    s.bytes_acked = info.tcpi_bytes_acked;
  }
  if (has(offsetof(tcp_info, tcpi_min_rtt), sizeof info.tcpi_min_rtt)) {
    // ~0U means "no sample yet".
    s.min_rtt_us = info.tcpi_min_rtt == ~0u ? 0 : info.tcpi_min_rtt;
  }
  if (has(offsetof(tcp_info, tcpi_delivery_rate), sizeof info.tcpi_delivery_rate)) {
    s.delivery_rate_Bps = info.tcpi_delivery_rate;
  }
  return s;
}

}  // namespace braid
