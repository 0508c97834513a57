#pragma once
/// Reading a ByteStream whole, for tests of the streams and their peers.

#include <cstddef>
#include <string>

#include "braid/byte_stream.h"

namespace braid::testing {

/// Everything `stream` carries until its end.
inline std::string ReadToEnd(ByteStream& stream) {
  std::string text;
  char buf[256];
  for (std::size_t n; (n = stream.ReadSome(buf, sizeof buf)) > 0;) text.append(buf, n);
  return text;
}

}  // namespace braid::testing
