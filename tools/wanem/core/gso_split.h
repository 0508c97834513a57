#pragma once
/// Cuts a TCP GSO frame into the MSS-sized segments a real NIC would have put
/// on the wire, so one lost (or tail-dropped) segment costs only that segment.
/// This is what lets the TUN devices carry 64 KiB frames at 1 Gbit/s with
/// little CPU while loss stays per segment, as TCP would see it on a real path.

#include <cstdint>
#include <vector>

#include "core/frame.h"

namespace wanem {

/// Returns segment i of `frame` for each i where keep[i] is true, each a frame
/// of its own: vnet header zeroed (no GSO, checksums complete), IPv4 total
/// length, ID (+i, as Linux TSO does) and header checksum, or IPv6 payload
/// length; TCP sequence number advanced by the bytes before it, FIN and PSH
/// only on the last segment and CWR only on the first, and a full TCP checksum.
/// `info` must come from InspectFrame(frame.bytes) with splittable set, and
/// keep.size() == info.segments. arrival and class are copied.
std::vector<Frame> SplitGso(const Frame& frame, const FrameInfo& info,
                            const std::vector<bool>& keep);

}  // namespace wanem
