#pragma once
/// The sink's verifier thread (-E to files): hashes each file's contiguous
/// prefix as it grows, in file order, so the digest is ready when its last
/// block lands. A block just written comes from the receiver's buffer through
/// the VerifyFeed; anything else is read back from the partial file.

#include <cstdint>
#include <functional>
#include <string>

#include "security/crypto/file_digest.h"
#include "session/transfer_state.h"
#include "sink/sink_files.h"
#include "sink/verify_feed.h"

namespace braid {

/// Hashes every data file not already in place, handing each digest to
/// `verified` (id, digest); returns early once the transfer failed, and stops
/// the feed when done. Throws BraidError naming host and path if a read fails.
void VerifyFiles(SinkFiles& files, VerifyFeed& feed, HashAlgorithm hash, std::uint64_t block_size,
                 const std::string& host, const TransferState& state,
                 const std::function<void(std::uint32_t, const DigestValue&)>& verified);

}  // namespace braid
