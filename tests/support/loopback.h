#pragma once
/// Ports on 127.0.0.1 for tests.

namespace braid::testing {

/// A TCP port on 127.0.0.1 that was free a moment ago and has nothing
/// listening now: for a connection that must be refused, or a server to bind
/// (which may still lose a race for it). Throws std::runtime_error if the
/// kernel hands out none.
int UnusedLoopbackPort();

}  // namespace braid::testing
