#include "security/crypto/library_versions.h"

#include <openssl/crypto.h>
#include <xxhash.h>

namespace braid {

std::string OpenSslVersion() { return OpenSSL_version(OPENSSL_VERSION); }

std::string XxhashVersion() {
  const unsigned n = XXH_versionNumber();  // major * 10000 + minor * 100 + release
  return std::to_string(n / 10000) + "." + std::to_string(n / 100 % 100) + "." +
         std::to_string(n % 100);
}

}  // namespace braid
