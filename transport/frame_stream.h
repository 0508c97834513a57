#pragma once
/// The frames of one data stream, sealed (--cipher) or clear (--cipher none).
///
/// Sealed, a frame is the 40-byte header with its checksum field 0 (the
/// associated data, exactly as sent), then `length` payload bytes encrypted,
/// then the 16-byte tag; each direction has its own key and frame counter
/// (security/crypto/frame_seal.h), so every frame of the stream must be sent
/// and read through this one object, in order. Clear, a frame is today's
/// header with the payload's XXH3-64 and the payload.
///
/// Built by, and used only on, the thread that owns the stream (its sender at
/// the source, its receiver at the sink): the cipher contexts and the scratch
/// buffer are that thread's, so sealing scales with the streams.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "braid/error.h"
#include "security/crypto/frame_seal.h"
#include "transport/data_frame.h"
#include "transport/data_socket.h"

namespace braid {

class FrameStream {
 public:
  /// A sealed frame is sent in pieces of this size (or less): the scratch
  /// buffer of 64 streams stays at 8 MiB, where a whole block each made the
  /// sender's memory grow a block with every stream -s auto put to work.
  static constexpr std::size_t kSealPiece = std::size_t{128} << 10;

  /// Takes the socket's keys: sealed when it has them. `max_payload` bounds
  /// what a received header may announce (DecodeFrameHeader).
  FrameStream(DataSocket& socket, std::uint32_t max_payload);

  bool sealed() const { return sealer_ != nullptr; }
  DataSocket& socket() { return socket_; }

  /// Sends one frame: `payload` is left as it is (sealed, its ciphertext goes
  /// into this stream's scratch buffer a piece at a time), so a caller may
  /// send it again on another stream. Throws BraidError(kPeerLost).
  void Send(FrameHeader header, std::span<const std::uint8_t> payload);

  /// The next frame's header, checked by DecodeFrameHeader (kProtocol);
  /// nullopt at a clean end of stream before its first byte. Sealed, a frame
  /// without payload is authenticated here. A header that does not decode
  /// stays a protocol error: its length cannot be trusted to find the tag,
  /// and reading by it could wait on bytes that never come. A frame with payload must have
  /// it read (ReadPayload) before the next header.
  std::optional<FrameHeader> ReadHeader();
  /// Reads the last header's payload into `out` (exactly its `length` bytes)
  /// and opens or checks it. Throws BraidError(kIntegrity) when a sealed
  /// frame fails its tag (`out` then holds nothing of it); returns false when
  /// a clear frame's checksum does not match, for the caller to name.
  [[nodiscard]] bool ReadPayload(std::span<std::uint8_t> out);

  /// The caller refuses the last header with `refusal` (a protocol error).
  /// Sealed, with its payload unread, the frame is read and opened first, so
  /// that a header altered on the way is reported as AuthenticationFailure;
  /// `refusal` is thrown when the frame is genuine (the peer's own error).
  [[noreturn]] void Refuse(const BraidError& refusal);

  /// What a failed tag says: "data stream N from PEER failed authentication:
  /// the data was altered on the way".
  BraidError AuthenticationFailure() const;

 private:
  /// Sealed: reads `length` payload bytes and the tag into the scratch
  /// buffer and opens them; throws AuthenticationFailure when they fail.
  void OpenInScratch(std::uint32_t length);

  DataSocket& socket_;
  std::uint32_t max_payload_;
  std::unique_ptr<FrameSealer> sealer_;
  std::unique_ptr<FrameOpener> opener_;
  /// Sealed: the ciphertext of the piece being sent (kSealPiece at most), or
  /// of a refused frame being read (its whole payload).
  std::vector<std::uint8_t> scratch_;
  FrameHeaderBytes head_{};   ///< the last header read, as it came (the AAD)
  FrameHeader last_;          ///< and decoded
  bool payload_due_ = false;  ///< last_ has a payload not read yet
};

}  // namespace braid
