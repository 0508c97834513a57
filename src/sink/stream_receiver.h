#pragma once
/// The frame loop of one data stream at the sink: reads each frame, checks its
/// header against the file list before reading the payload, opens the sealed
/// payload (or checks a clear one's checksum), inflates a compressed block, and hands blocks to the
/// BlockWriter, file ends to SinkFiles and pass ends to the session. Runs on
/// the stream's receiver thread, with block writes behind it on threads of
/// their own (WriteBehind); owns nothing the other threads see.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "proto/control_message.h"
#include "session/buffer_pool.h"
#include "session/transfer_state.h"
#include "sink/block_writer.h"
#include "sink/sink_files.h"
#include "sink/write_behind.h"
#include "transport/data_frame.h"
#include "transport/data_socket.h"
#include "transport/frame_stream.h"

namespace braid {

class StreamReceiver {
 public:
  /// The stream's pass end came in, announcing how many streams the source
  /// connected and how many it still has (0: all); returns false when the
  /// stream is done (the transfer is, or failed).
  using PassEndFn = std::function<bool(std::uint32_t announced, std::uint32_t still)>;

  StreamReceiver(DataSocket& socket, const TransferParams& params, SinkFiles& files,
                 BufferPool& pool, BlockWriter& writer, const std::string& host);

  /// Receives until `pass_end` says done or the transfer fails. Throws
  /// BraidError: kPeerLost when the stream closes first, kProtocol or
  /// kIntegrity for a frame that does not check out.
  void Run(TransferState& state, const PassEndFn& pass_end);
  /// The stream's frames, for the resend list sent on it at a pass end.
  FrameStream& frames() { return frames_; }

 private:
  void ReceiveData(const FrameHeader& h, TransferState& state);
  /// Writes a checked block, behind the receiver where the writes go to files.
  void WriteBlock(const FrameHeader& h, BufferRef buffer, std::optional<std::uint64_t> checksum);
  /// Waits for the write behind, before a frame that counts on it.
  void DrainWrites() {
    if (behind_) behind_->Drain();
  }
  /// A "same" frame: the compared target already holds that block.
  void ReceiveSame(const FrameHeader& h);
  /// A hole: recorded in a file written at offsets, zeros for a target
  /// written in order (or counted, for /dev/null).
  void ReceiveHole(const FrameHeader& h, TransferState& state);
  /// The payload of a file-end frame: the source's digest, checked against -E.
  std::optional<DigestValue> ReadFileEnd(const FrameHeader& h);
  std::string Where(const std::string& path) const {
    return host_.empty() ? path : host_ + ":" + path;
  }
  bool hashing() const { return params_.hash != HashAlgorithm::kNone; }

  DataSocket& socket_;
  /// Made on the receiver thread with the receiver: its opener and sealer are this thread's.
  FrameStream frames_;
  const TransferParams& params_;
  SinkFiles& files_;
  BufferPool& pool_;
  BlockWriter& writer_;
  const std::string& host_;
  /// A compressed payload lands here and is inflated into the block buffer.
  std::vector<std::uint8_t> scratch_;
  /// Made by Run where the writes go to files; last, so it stops first.
  std::unique_ptr<WriteBehind> behind_;
};

}  // namespace braid
