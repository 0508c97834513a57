#pragma once
/// Limits every layer shares: the command line, the control and data protocols
/// and the engine. A header of its own, with no includes, so that transport/
/// and proto/ can use them without pulling in Options.

namespace braid {

/// Most parallel data streams a copy runs (-s 1..64). Also a protocol bound:
/// the stream count in TransferParams and PassEnd, a stream's handshake index
/// (< kMaxStreams) and the samples in one Progress message.
constexpr int kMaxStreams = 64;

}  // namespace braid
