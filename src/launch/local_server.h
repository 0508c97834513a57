#pragma once
/// Runs `braid --serve` as a child process over a socketpair, so a local end
/// speaks exactly the protocol a remote end speaks over ssh.

#include <memory>

#include "braid/byte_stream.h"

namespace braid {

/// Starts the child from this same executable. Throws BraidError(kInternal)
/// if it cannot be started.
std::unique_ptr<ServerChannel> SpawnLocalServer();

}  // namespace braid
