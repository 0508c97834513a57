#pragma once
/// `braid --serve`: one end of a transfer, driven by the agent over a control
/// stream (ssh channel stdio, or a socketpair for a local child).

#include "braid/byte_stream.h"

namespace braid {

/// Serves one transfer; returns the process exit status.
int RunServer(ByteStream& control);

/// RunServer over descriptors it borrows: stdin and stdout under ssh, or the
/// socket --serve-fd names for a local child (both numbers the same).
int RunServerOnFds(int read_fd, int write_fd);

}  // namespace braid
