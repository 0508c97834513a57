#pragma once
/// A TCP connection that has passed the data handshake, handed from the Asio
/// listener/connector to a data thread as a plain descriptor.

#include <cstdint>
#include <string>

#include "braid/unique_fd.h"

namespace braid {

struct AuthenticatedStream {
  std::uint16_t index = 0;
  UniqueFd fd;
  std::string peer;  ///< "address:port" of the other end, numeric
};

}  // namespace braid
