#pragma once
/// The TCP connection under an ssh session: resolve, connect with a bound wait,
/// tune for a long-lived, latency-sensitive control channel.

#include <chrono>
#include <string>

namespace braid {

/// Connects to `hostname` port `port` and returns the socket, which the caller
/// then owns. A literal address is never looked up; a name is resolved with
/// getaddrinfo (the user asked for that name). Every address is tried, each
/// bounded by `timeout`. Throws BraidError(kHostUnreachable) naming
/// `display_host`, the address and the cause.
int ConnectTcp(const std::string& display_host, const std::string& hostname, int port,
               std::chrono::milliseconds timeout);

/// The numeric address of the socket's local end, "" if unknown. Never DNS.
std::string LocalSocketAddress(int fd);

}  // namespace braid
