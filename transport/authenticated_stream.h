#pragma once
/// A TCP connection that has passed the data handshake, handed from the Asio
/// listener/connector to a data thread as a plain descriptor.

#include <cstdint>
#include <optional>
#include <string>

#include "braid/unique_fd.h"
#include "security/crypto/stream_handshake.h"

namespace braid {

struct AuthenticatedStream {
  std::uint16_t index = 0;
  UniqueFd fd;
  std::string peer;  ///< "address:port" of the other end, numeric
  /// What seals this stream's frames (from its own handshake); nullopt under
  /// --cipher none. Moved on to the one thread that sends and receives on it.
  std::optional<StreamKeys> keys;
};

}  // namespace braid
