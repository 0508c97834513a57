#include "security/crypto/session_secret.h"

#include <openssl/rand.h>

#include <cstdio>
#include <cstdlib>
#include <limits>

namespace braid {

void FillRandom(std::span<std::uint8_t> out) {
  if (out.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
      RAND_bytes(out.data(), static_cast<int>(out.size())) != 1) {
    std::fputs("braid: OpenSSL's random generator failed; refusing to continue\n", stderr);
    std::abort();
  }
}

}  // namespace braid
