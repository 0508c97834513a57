#pragma once
/// Runs `braid --serve` as a child process over a socketpair, so a local end
/// speaks exactly the protocol a remote end speaks over ssh.

#include <memory>
#include <string>
#include <vector>

#include "braid/byte_stream.h"

namespace braid {

/// Starts the child from this same executable. Throws BraidError(kInternal)
/// if it cannot be started. `extra_args` go after `--serve` (the list caps).
std::unique_ptr<ServerChannel> SpawnLocalServer(const std::vector<std::string>& extra_args = {});

}  // namespace braid
