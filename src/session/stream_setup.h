#pragma once
/// Bringing up the data streams, either way round: the connecting end (the
/// source, or the sink with -z) and the listening end. Failures become errors
/// that say what was tried and what to try next.

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "proto/control_message.h"
#include "transport/authenticated_stream.h"
#include "transport/data_listener.h"
#include "transport/socket_tuning.h"

namespace braid {

SocketTuning TuningFor(const TransferParams& params);

/// Connects `params.streams` streams to whichever address answers. Warns when
/// only some connect; throws BraidError(kDataConnect) when none does, naming
/// the addresses and port, and suggesting -z / -Z.
std::vector<AuthenticatedStream> ConnectStreams(
    const std::vector<std::string>& addresses, std::uint16_t port, const TransferParams& params,
    const std::function<void(const std::string&)>& warn);

/// Accepts up to `params.streams` streams: returns once all are in, once
/// `idle` passes after the latest (the connector has given up on the rest), or
/// at `deadline`; nullopt-free: throws BraidError(kDataConnect) if none came.
/// `on_stream` runs as each arrives (the caller may start using it at once).
void AcceptStreams(DataListener& listener, const TransferParams& params,
                   std::chrono::steady_clock::duration deadline,
                   std::chrono::steady_clock::duration idle,
                   const std::function<void(AuthenticatedStream)>& on_stream,
                   const std::function<bool()>& stop);

}  // namespace braid
