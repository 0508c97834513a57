#include "transport/frame_stream.h"

#include <algorithm>
#include <array>

#include "braid/error.h"
#include "security/crypto/payload_checksum.h"

namespace braid {

FrameStream::FrameStream(DataSocket& socket, std::uint32_t max_payload)
    : socket_(socket), max_payload_(max_payload) {
  if (std::optional<StreamKeys> keys = socket.TakeKeys()) {
    sealer_ = std::make_unique<FrameSealer>(keys->send);
    opener_ = std::make_unique<FrameOpener>(keys->receive);
  }
}

void FrameStream::Send(FrameHeader header, std::span<const std::uint8_t> payload) {
  header.length = static_cast<std::uint32_t>(payload.size());
  if (!sealed()) {
    // A clear pass end carries 0 (docs/protocol.md); everything else its payload's XXH3-64.
    header.checksum = header.type == FrameType::kPassEnd ? 0 : PayloadChecksum(payload);
    FrameHeaderBytes head = EncodeFrameHeader(header);
    socket_.SendParts(head, payload, {});
    return;
  }
  header.checksum = 0;  // the tag authenticates instead
  FrameHeaderBytes head = EncodeFrameHeader(header);
  sealer_->Begin(head);
  // Sealed and sent a piece at a time, each piece's ciphertext is still in the
  // cache when the send copies it, and the scratch stays small.
  if (scratch_.size() < std::min<std::size_t>(payload.size(), kSealPiece)) {
    scratch_.resize(std::min<std::size_t>(payload.size(), kSealPiece));
  }
  std::span<const std::uint8_t> first = head;
  std::array<std::uint8_t, kSealTagSize> tag{};
  std::size_t done = 0;
  do {
    std::size_t n = std::min(payload.size() - done, kSealPiece);
    std::span<std::uint8_t> sealed(scratch_.data(), n);
    sealer_->Continue(payload.subspan(done, n), sealed);
    done += n;
    std::span<const std::uint8_t> last;
    if (done == payload.size()) {
      sealer_->End(tag);
      last = tag;
    }
    socket_.SendParts(first, sealed, last);
    first = {};
  } while (done < payload.size());
}

std::optional<FrameHeader> FrameStream::ReadHeader() {
  if (payload_due_) {
    throw BraidError(ErrorCode::kInternal, "a data frame's payload was left unread");
  }
  if (!socket_.ReadExact(head_.data(), head_.size(), /*eof_ok=*/true)) return std::nullopt;
  last_ = DecodeFrameHeader(head_, max_payload_);
  payload_due_ = last_.length > 0;
  if (sealed() && !payload_due_) {
    std::array<std::uint8_t, kSealTagSize> tag{};
    socket_.ReadExact(tag.data(), tag.size());
    if (!opener_->Open(head_, {}, tag)) throw AuthenticationFailure();
  }
  return last_;
}

bool FrameStream::ReadPayload(std::span<std::uint8_t> out) {
  if (out.size() != last_.length || (!payload_due_ && !out.empty())) {
    throw BraidError(ErrorCode::kInternal, "a data frame's payload read with the wrong length");
  }
  payload_due_ = false;
  if (!out.empty()) socket_.ReadExact(out.data(), out.size());
  if (!sealed()) return PayloadChecksum(out) == last_.checksum;
  if (out.empty()) return true;  // opened with its header
  std::array<std::uint8_t, kSealTagSize> tag{};
  socket_.ReadExact(tag.data(), tag.size());
  if (!opener_->Open(head_, out, tag)) throw AuthenticationFailure();
  return true;
}

void FrameStream::Refuse(const BraidError& refusal) {
  if (sealed() && payload_due_) {
    payload_due_ = false;
    OpenInScratch(last_.length);
  }
  throw refusal;
}

void FrameStream::OpenInScratch(std::uint32_t length) {
  if (scratch_.size() < length) scratch_.resize(length);
  std::span<std::uint8_t> body(scratch_.data(), length);
  socket_.ReadExact(body.data(), body.size());
  std::array<std::uint8_t, kSealTagSize> tag{};
  socket_.ReadExact(tag.data(), tag.size());
  if (!opener_->Open(head_, body, tag)) throw AuthenticationFailure();
}

BraidError FrameStream::AuthenticationFailure() const {
  return BraidError(ErrorCode::kIntegrity, "data stream " + std::to_string(socket_.index()) +
                                               " from " + socket_.peer() +
                                               " failed authentication: the data was altered "
                                               "on the way");
}

}  // namespace braid
