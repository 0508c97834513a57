#pragma once
/// What either end does when one of its data streams dies. A stream whose peer
/// went away is not the end of the copy: the other streams carry on (the
/// source puts back what the dead one was sending, the sink asks again for
/// what it lost in flight) as long as one is left. Anything else a stream
/// throws fails the transfer.

#include <chrono>
#include <cstddef>
#include <string>

#include "braid/error.h"
#include "session/transfer_state.h"

namespace braid {

/// A stream that dies because the whole transfer is failing dies moments
/// before the agent's abort arrives; only a death without one is news.
constexpr auto kStreamEchoWindow = std::chrono::milliseconds(500);

/// True if a stream that failed with `error` was lost on its own: its peer
/// went away (kPeerLost) and the transfer does not fail within
/// kStreamEchoWindow (it waits that long for the failure it may be an echo
/// of). False: the caller rethrows `error`.
bool LostOnItsOwn(const BraidError& error, const TransferState& state);

/// `lost` of the `connected` streams have died, the latest with `error`.
/// Throws BraidError(kPeerLost) when none is left; else returns the warning
/// for the user ("...; continuing on N streams"). Pure.
std::string SurviveStreamLoss(const BraidError& error, std::size_t connected, std::size_t lost);

}  // namespace braid
