#pragma once
/// `braid --serve`: one end of a transfer, driven by the agent over a control
/// stream (ssh channel stdio, or a socketpair for a local child).

#include "braid/byte_stream.h"
#include "braid/limits.h"

namespace braid {

/// Serves one transfer; returns the process exit status. `limits`: the caps a
/// sink puts on the file list the agent relays (--max-entries, --max-list-bytes
/// on the --serve command line).
int RunServer(ByteStream& control, ListLimits limits = {});

/// RunServer over descriptors it borrows: stdin and stdout under ssh, or the
/// socket --serve-fd names for a local child (both numbers the same).
int RunServerOnFds(int read_fd, int write_fd, ListLimits limits = {});

}  // namespace braid
