#include "security/ssh/ssh_version.h"

#include <libssh2.h>

namespace braid {

std::string Libssh2Version() {
  const char* version = libssh2_version(0);
  return version != nullptr ? version : "unknown";
}

}  // namespace braid
