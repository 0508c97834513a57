#pragma once
/// Opens and authenticates `count` data streams to a listener, all at once.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "braid/cipher.h"
#include "security/crypto/session_secret.h"
#include "transport/authenticated_stream.h"
#include "transport/socket_tuning.h"

namespace braid {

struct ConnectResult {
  std::vector<AuthenticatedStream> streams;  ///< the ones that made it, any order
  std::string last_error;                    ///< why the last failure failed
};

/// Each stream tries `addresses` in order with `timeout` per attempt, and
/// carries its keys under `cipher` (none for kNone). Never throws for a failed connection; the
/// caller decides if too few made it.
ConnectResult ConnectDataStreams(const std::vector<std::string>& addresses, std::uint16_t port,
                                 const Secret& secret, const SessionId& session,
                                 std::uint16_t count, Cipher cipher, const SocketTuning& tuning,
                                 std::chrono::steady_clock::duration timeout);

}  // namespace braid
