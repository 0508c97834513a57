#include "agent/version_text.h"

#include "launch/server_launcher.h"
#include "proto/control_message.h"
#include "security/crypto/library_versions.h"
#include "transport/block_codec.h"

#ifndef BRAID_VERSION
#error "BRAID_VERSION must be defined by the build (see src/agent/CMakeLists.txt)"
#endif

namespace braid {

std::string VersionText() {
  return "braid " BRAID_VERSION "\nprotocol " + std::to_string(kProtocolVersion) + "\n" +
         OpenSslVersion() + "\nlibssh2 " + SshLibraryVersion() + "\nzlib " + ZlibVersion() +
         "\nxxHash " + XxhashVersion() + "\n";
}

}  // namespace braid
