#pragma once
/// Ports on 127.0.0.1 for tests.

#include <cstdint>

#include "braid/unique_fd.h"

namespace braid::testing {

/// A TCP port on 127.0.0.1 that was free a moment ago and has nothing
/// listening now: for a connection that must be refused, or a server to bind
/// (which may still lose a race for it). Throws std::runtime_error if the
/// kernel hands out none.
int UnusedLoopbackPort();

/// A TCP listener on 127.0.0.1 whose backlog completes connects but which
/// never accepts or says a word: an ssh server that hangs before its banner,
/// so only a timeout (or a signal) ends a handshake with it. Throws
/// std::runtime_error if it cannot listen.
class SilentListener {
 public:
  SilentListener();
  std::uint16_t port() const { return port_; }

 private:
  UniqueFd fd_;
  std::uint16_t port_ = 0;
};

}  // namespace braid::testing
