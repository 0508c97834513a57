#include "sink/stream_receiver.h"

#include <array>
#include <cstring>

#include "transport/block_codec.h"

namespace braid {

StreamReceiver::StreamReceiver(DataSocket& socket, const TransferParams& params, SinkFiles& files,
                               BufferPool& pool, BlockWriter& writer, const std::string& host)
    : socket_(socket),
      frames_(socket, params.block_size),
      params_(params),
      files_(files),
      pool_(pool),
      writer_(writer),
      host_(host),
      scratch_(params.compress_level > 0 ? params.block_size : 0) {}

void StreamReceiver::Run(TransferState& state, const PassEndFn& pass_end) {
  if (writer_.writes_at_offsets()) {
    behind_ = std::make_unique<WriteBehind>(state, WriteBehind::DepthFor(params_.streams));
  }
  while (!state.failed()) {
    std::optional<FrameHeader> next = frames_.ReadHeader();
    if (!next) {
      throw BraidError(ErrorCode::kPeerLost,
                       "data stream from " + socket_.peer() + " closed before the transfer ended");
    }
    const FrameHeader& h = *next;
    // A file end completes a file, a pass end reports what arrived: both
    // count on every block before them being written.
    if (h.type != FrameType::kData && h.type != FrameType::kHole) DrainWrites();
    switch (h.type) {
      case FrameType::kData:
        ReceiveData(h, state);
        break;
      case FrameType::kFileEnd: {
        std::optional<DigestValue> digest = ReadFileEnd(h);
        files_.EndFile(h.file_id, h.offset, digest);
        break;
      }
      case FrameType::kSame:
        ReceiveSame(h);
        state.same_bytes.fetch_add(h.raw_length);
        break;
      case FrameType::kHole:
        ReceiveHole(h, state);
        break;
      case FrameType::kPassEnd:
        if (!pass_end(h.file_id, h.raw_length)) return;
        break;
      case FrameType::kResend:
        frames_.Refuse(
            BraidError(ErrorCode::kProtocol, "protocol error: resend request from the source"));
    }
  }
}

void StreamReceiver::ReceiveData(const FrameHeader& h, TransferState& state) {
  bool compressed = (h.flags & kFlagCompressed) != 0;
  if (compressed && params_.compress_level <= 0) {
    frames_.Refuse(
        BraidError(ErrorCode::kProtocol, "protocol error: compressed block not negotiated"));
  }
  try {
    files_.CheckBlock(h.file_id, h.offset, h.raw_length);
  } catch (const BraidError& e) {
    frames_.Refuse(e);
  }
  if (!writer_.WaitForRoom(h.file_id, h.offset)) return;
  BufferRef buffer = pool_.Acquire();
  if (!buffer) return;
  // A raw payload lands in the block buffer directly.
  std::uint8_t* wire = compressed ? scratch_.data() : buffer->data();
  // Sealed, nothing of it is used (or written) unless its tag proves it genuine.
  if (!frames_.ReadPayload({wire, h.length})) {
    throw BraidError(ErrorCode::kIntegrity, "block checksum mismatch from " + socket_.peer() +
                                                " for " + Where(files_.final_path(h.file_id)) +
                                                " at offset " + std::to_string(h.offset));
  }
  if (compressed) InflateBlock({wire, h.length}, {buffer->data(), h.raw_length});
  state.wire_bytes.fetch_add(h.length);
  std::optional<std::uint64_t> raw_checksum;
  // Clear and uncompressed, the checksum is that of the bytes on disk; else the writer makes it.
  if (!compressed && !frames_.sealed()) raw_checksum = h.checksum;
  WriteBlock(h, std::move(buffer), raw_checksum);
  state.arriving.store(h.file_id, std::memory_order_release);
}

void StreamReceiver::WriteBlock(const FrameHeader& h, BufferRef buffer,
                                std::optional<std::uint64_t> checksum) {
  if (!behind_) {
    writer_.Write(h.file_id, h.offset, std::move(buffer), h.raw_length, checksum);
    return;
  }
  behind_->Submit([this, id = h.file_id, offset = h.offset, buffer = std::move(buffer),
                   length = h.raw_length,
                   checksum] { writer_.Write(id, offset, buffer, length, checksum); });
}

void StreamReceiver::ReceiveSame(const FrameHeader& h) {
  // Checked before its (empty) payload's tag, as a data frame's header is.
  try {
    files_.CheckBlock(h.file_id, h.offset, h.raw_length);
  } catch (const BraidError& e) {
    frames_.Refuse(e);
  }
  if (!frames_.ReadPayload({})) {
    throw BraidError(ErrorCode::kIntegrity, "same-block frame checksum mismatch from " +
                                                socket_.peer() + " for " +
                                                Where(files_.final_path(h.file_id)));
  }
  files_.RecordSame(h.file_id, h.offset, h.raw_length);
}

void StreamReceiver::ReceiveHole(const FrameHeader& h, TransferState& state) {
  try {
    files_.CheckBlock(h.file_id, h.offset, h.raw_length);
    if (files_.list().kind(h.file_id) != FileKind::kRegular) {
      throw BraidError(ErrorCode::kProtocol,
                       "protocol error: a hole in an entry that is not a regular file");
    }
  } catch (const BraidError& e) {
    frames_.Refuse(e);
  }
  if (!frames_.ReadPayload({})) {
    throw BraidError(ErrorCode::kIntegrity, "hole frame checksum mismatch from " + socket_.peer() +
                                                " for " + Where(files_.final_path(h.file_id)));
  }
  state.arriving.store(h.file_id, std::memory_order_release);
  if (writer_.writes_at_offsets()) {
    writer_.Hole(h.file_id, h.offset, h.raw_length);
    return;
  }
  // In order (or to nowhere) a hole is its zeros.
  if (!writer_.WaitForRoom(h.file_id, h.offset)) return;
  BufferRef buffer = pool_.Acquire();
  if (!buffer) return;
  std::memset(buffer->data(), 0, h.raw_length);
  WriteBlock(h, std::move(buffer), std::nullopt);
}

std::optional<DigestValue> StreamReceiver::ReadFileEnd(const FrameHeader& h) {
  // The decoder bounded the length by the longest digest; it must also be this
  // transfer's algorithm's, and present exactly when a hash was asked for.
  bool flagged = (h.flags & kFlagHasDigest) != 0;
  std::size_t want = DigestSize(params_.hash);
  if (flagged != hashing() || (flagged && h.length != want)) {
    frames_.Refuse(BraidError(ErrorCode::kProtocol, "protocol error: file end from " +
                                                        socket_.peer() + " carries a digest of " +
                                                        std::to_string(h.length) + " bytes; " +
                                                        std::string(HashName(params_.hash)) +
                                                        " has " + std::to_string(want)));
  }
  std::array<std::uint8_t, kMaxDigestSize> bytes{};
  if (!frames_.ReadPayload({bytes.data(), h.length})) {
    throw BraidError(ErrorCode::kIntegrity, "file-end checksum mismatch from " + socket_.peer());
  }
  if (!flagged) return std::nullopt;
  return MakeDigestValue({bytes.data(), h.length});
}

}  // namespace braid
