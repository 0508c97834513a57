#pragma once
/// Socket options for data streams, applied before connect/listen so that
/// buffer sizes take part in TCP window-scale negotiation.

#include <cstdint>
#include <string>

namespace braid {

struct SocketTuning {
  std::uint64_t window = 0;        ///< SO_SNDBUF/SO_RCVBUF; 0 keeps kernel autotuning
  int tos = -1;                    ///< IP_TOS / IPV6_TCLASS byte; -1 keeps the kernel's (0)
  std::string congestion_control;  ///< TCP_CONGESTION; empty keeps net.ipv4's default
};

/// Applies what it can; returns a warning for what the kernel refused (empty if none).
/// The TOS byte goes to IP_TOS on IPv4 sockets and IPV6_TCLASS (plus IP_TOS, for
/// v4-mapped peers) on IPv6 ones. A congestion control the kernel does not offer is not
/// a warning but an error: the user asked for it by name, and a silent fallback would
/// spoil an experiment. Throws BraidError(kUsage) listing what the kernel offers.
std::string ApplySocketTuning(int fd, const SocketTuning& tuning);

/// Throws BraidError(kUsage) as ApplySocketTuning would when `name` cannot be set on a
/// TCP socket of this host; `host` ("" = here) names the host in the message. Trying a
/// throwaway socket, rather than reading the available list, also lets root autoload
/// a module such as tcp_bbr, exactly as the data sockets would.
void CheckCongestionControl(const std::string& name, const std::string& host = "");

/// The kernel's net.ipv4.tcp_available_congestion_control, one space between names;
/// "" if unreadable.
std::string AvailableCongestionControl();

/// The congestion control new TCP sockets of this network namespace get
/// (net.ipv4.tcp_congestion_control); "" if unreadable.
std::string DefaultCongestionControl();

}  // namespace braid
