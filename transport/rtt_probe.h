#pragma once
/// The round-trip probes a chain is ordered by (docs/protocol.md, "Probes"):
/// a listener that answers TCP connects and closes them at once, and the
/// connect time to one, which is one round trip (the SYN and its SYN-ACK)
/// plus the two kernels' handling.

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "braid/unique_fd.h"

namespace braid {

class ProbeListener {
 public:
  /// Listens on a free port of `bind_address` (numeric; "::" or "0.0.0.0" for
  /// any): any port, or with `port_min` > 0 one of `port_min..port_max` (-Z,
  /// for a firewall that opens only those), tried once each from a random
  /// start. Throws BraidError(kDataConnect) naming the address.
  ProbeListener(const std::string& bind_address, std::uint16_t port_min = 0,
                std::uint16_t port_max = 0);
  /// Stops answering and joins its thread.
  ~ProbeListener();
  ProbeListener(const ProbeListener&) = delete;
  ProbeListener& operator=(const ProbeListener&) = delete;

  std::uint16_t port() const { return port_; }

 private:
  void AnswerLoop();
  /// Binds a port of the range; the errno of the last try, or 0.
  int BindInRange(const std::string& bind_address, std::uint16_t port_min, std::uint16_t port_max);

  UniqueFd fd_;
  UniqueFd stop_;  ///< an eventfd, readable once the destructor runs
  std::uint16_t port_ = 0;
  std::thread thread_;  ///< started last
};

/// The shortest of `tries` connects to the first of `addresses` (numeric,
/// never looked up) that answers on `port`, in microseconds (at least 1);
/// 0 when none answered within `timeout` a try.
std::uint32_t MeasureConnectRtt(const std::vector<std::string>& addresses, std::uint16_t port,
                                int tries, std::chrono::milliseconds timeout);

}  // namespace braid
