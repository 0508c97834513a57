#pragma once
/// AEAD sealing of one direction of one data stream (--cipher): the frame
/// header is authenticated as associated data, the payload encrypted in
/// place, and a 16-byte tag travels with the frame. The 96-bit nonce is the
/// frame's number on its key (4 zero bytes, then a big-endian 64-bit counter),
/// never sent: sealer and opener count the same frames, so a frame replayed,
/// reordered, dropped or moved from another stream is opened with the wrong
/// nonce (or key) and fails. Keys are updated at fixed points both ends know
/// (KeyUpdateLimits), far inside AES-GCM's safe volume per key.
///
/// Each object belongs to the one thread that sends or receives on its stream
/// and keeps one OpenSSL context, so sealing costs no allocation per frame.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "braid/cipher.h"
#include "security/crypto/stream_keys.h"

namespace braid {

/// When both ends move to the next key: after this many frames or payload
/// bytes under one key, whichever comes first. The defaults keep one key's
/// volume at 2^34 bytes (16 GiB), well below what TLS 1.3 allows AES-GCM.
struct KeyUpdateLimits {
  std::uint64_t frames = std::uint64_t{1} << 24;
  std::uint64_t bytes = std::uint64_t{1} << 34;
};

class FrameCipher;

class FrameSealer {
 public:
  explicit FrameSealer(const StreamKey& key, KeyUpdateLimits limits = {});
  ~FrameSealer();
  FrameSealer(const FrameSealer&) = delete;
  FrameSealer& operator=(const FrameSealer&) = delete;

  /// Encrypts `payload` in place, authenticating `header` with it, and writes
  /// the tag. Throws BraidError(kInternal) if the frame counter is spent.
  void Seal(std::span<const std::uint8_t> header, std::span<std::uint8_t> payload,
            std::span<std::uint8_t, kSealTagSize> tag);
  /// The same, reading the payload from `in` and writing its ciphertext to
  /// `out` (of the same size) in the same single pass: for a sender whose
  /// buffer others still read (the -E hasher) or may send again on another
  /// stream after this one dies.
  void Seal(std::span<const std::uint8_t> header, std::span<const std::uint8_t> in,
            std::span<std::uint8_t> out, std::span<std::uint8_t, kSealTagSize> tag);
  /// The same in pieces, for a sender that sends each piece of ciphertext
  /// while it is still in the cache: Begin with the header, Continue with each
  /// piece of the payload in order (`out` the size of `in`), End for the tag.
  /// The frame is the same as one Seal makes; it counts once End returns.
  void Begin(std::span<const std::uint8_t> header);
  void Continue(std::span<const std::uint8_t> in, std::span<std::uint8_t> out);
  void End(std::span<std::uint8_t, kSealTagSize> tag);
  /// Frames sealed so far, across key updates.
  std::uint64_t frames() const;

 private:
  std::unique_ptr<FrameCipher> cipher_;
};

class FrameOpener {
 public:
  explicit FrameOpener(const StreamKey& key, KeyUpdateLimits limits = {});
  ~FrameOpener();
  FrameOpener(const FrameOpener&) = delete;
  FrameOpener& operator=(const FrameOpener&) = delete;

  /// Decrypts `payload` in place if `tag` proves the frame is the next one its
  /// peer sealed, `header` and payload unaltered. On false the payload is
  /// wiped and the opener is spent: the stream cannot be trusted any more.
  [[nodiscard]] bool Open(std::span<const std::uint8_t> header, std::span<std::uint8_t> payload,
                          std::span<const std::uint8_t, kSealTagSize> tag);
  std::uint64_t frames() const;

 private:
  std::unique_ptr<FrameCipher> cipher_;
  bool failed_ = false;
};

}  // namespace braid
