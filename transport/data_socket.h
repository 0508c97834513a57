#pragma once
/// One authenticated data stream: blocking frame IO on a connected TCP socket.
/// Bulk data bypasses Asio here on purpose: a thread per stream doing plain
/// writev/recv is the cheapest path on loopback and needs no executor.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "braid/unique_fd.h"
#include "transport/authenticated_stream.h"
#include "transport/data_frame.h"

namespace braid {

class DataSocket {
 public:
  /// Takes the descriptor and puts it in blocking mode (Asio leaves it non-blocking).
  DataSocket(UniqueFd fd, std::string peer);
  /// The same for a stream the listener or connector authenticated; keeps its
  /// index and keys until the stream's thread takes them (TakeKeys).
  explicit DataSocket(AuthenticatedStream stream);
  DataSocket(const DataSocket&) = delete;
  DataSocket& operator=(const DataSocket&) = delete;

  /// Sends header and payload in one writev loop. Throws BraidError(kPeerLost).
  void SendFrame(const FrameHeader& header, std::span<const std::uint8_t> payload);
  /// Sends the three parts of a frame (header, payload, tag; any may be
  /// empty) in one writev loop. Throws BraidError(kPeerLost).
  void SendParts(std::span<const std::uint8_t> head, std::span<const std::uint8_t> payload,
                 std::span<const std::uint8_t> tail);
  /// Reads exactly `n` bytes. Returns false only on a clean end of stream
  /// before the first byte when `eof_ok`; throws BraidError(kPeerLost) otherwise.
  bool ReadExact(void* out, std::size_t n, bool eof_ok = false);
  /// Sends at once the small frames Nagle holds back while data is unacknowledged
  /// (until the peer's delayed ACK, 40 ms on Linux): call after the last frame
  /// before waiting for an answer. Best effort.
  void Push();
  /// Wakes any thread blocked on this socket; safe from another thread.
  void Shutdown();
  /// Lets a send complete only while at most `bytes` are unsent in the kernel
  /// (TCP_NOTSENT_LOWAT). A deep backlog ties blocks to one stream: on a long
  /// path a slow stream then holds the end of the copy, and its bytes-acked
  /// lag seconds behind what was written. Best effort.
  void LimitUnsent(std::uint32_t bytes);
  /// Lets the kernel space this stream's packets to at most `bytes_per_second`
  /// (SO_MAX_PACING_RATE, which also turns on TCP's own pacing where no fq qdisc
  /// does it); 0 lifts the limit. Without it a paced copy sends each block as one
  /// burst at line rate, and the queue that burst builds is all a polite copy sees
  /// of the RTT. Best effort.
  void PaceAt(std::uint64_t bytes_per_second);

  int fd() const { return fd_.get(); }
  const std::string& peer() const { return peer_; }
  /// The stream's index in its handshake (0 for a socket made from a bare fd).
  std::uint16_t index() const { return index_; }
  /// The keys, once: the thread that owns the stream builds its sealer and
  /// opener from them (transport/frame_stream.h). Nullopt under --cipher none.
  std::optional<StreamKeys> TakeKeys() { return std::exchange(keys_, std::nullopt); }

 private:
  [[noreturn]] void Fail(const std::string& what, int err) const;

  UniqueFd fd_;
  std::string peer_;
  std::uint16_t index_ = 0;
  /// Set by the constructor (acceptor or connecting thread), taken by the
  /// stream's own thread before it sends or receives; never touched by both.
  std::optional<StreamKeys> keys_;
};

}  // namespace braid
