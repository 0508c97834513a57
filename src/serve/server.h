#pragma once
/// `braid --serve`: one end of a transfer, driven by the agent over a control
/// stream (ssh channel stdio, or a socketpair for a local child).

#include "braid/byte_stream.h"

namespace braid {

/// Serves one transfer; returns the process exit status.
int RunServer(ByteStream& control);

}  // namespace braid
