#pragma once
/// Length-prefixed control messages over a ByteStream (ssh channel or pipe).
/// One thread receives; any thread may send.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "braid/byte_stream.h"
#include "braid/mutex.h"
#include "proto/control_message.h"

namespace braid {

class ControlChannel {
 public:
  explicit ControlChannel(ByteStream& stream) : stream_(stream) {}
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  /// Thread-safe. Throws BraidError if the stream fails.
  void Send(const ControlMessage& message);
  /// Sends the messages in order with one write: a batch of committed small
  /// files is then one ssh packet, not one each. Thread-safe.
  void Send(std::span<const ControlMessage> messages);
  /// Blocks for the next message; nullopt when the peer closed cleanly between
  /// messages. Throws BraidError(kProtocol) on a malformed or truncated one.
  std::optional<ControlMessage> Receive();

 private:
  /// False at a clean end of stream before the first byte.
  bool ReadExactly(std::uint8_t* out, std::size_t n);

  /// Writes go through send_mutex_ (any thread), reads come from the
  /// receiving thread only: the ByteStream allows one reader beside one
  /// writer, so the two sides need no common lock.
  ByteStream& stream_;
  /// Keeps each Send's bytes together on the stream; it guards no field.
  Mutex send_mutex_;
  /// Bytes read ahead of the message being decoded (receiving thread only): a
  /// run of small messages, a tree's file-done reports, costs one read, not two each.
  std::vector<std::uint8_t> read_ahead_ = std::vector<std::uint8_t>(64 * 1024);
  std::size_t ahead_begin_ = 0;  ///< receiving thread only, as read_ahead_
  std::size_t ahead_end_ = 0;    ///< receiving thread only
};

}  // namespace braid
