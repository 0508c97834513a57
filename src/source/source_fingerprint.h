#pragma once
/// A cheap content fingerprint of a source file for resume: a hash of a few
/// samples spread over the file. It notices a different file of the same size
/// and time (a rewrite with the time put back, a restored backup), without
/// reading the whole file as a full checksum would.

#include <cstdint>

namespace braid {

/// Hash of the size and 16 samples of 4 KiB, evenly spread (first and last
/// included). 0 when the file cannot be read: the copy will report that.
std::uint64_t SourceFingerprint(int fd, std::uint64_t size);

}  // namespace braid
