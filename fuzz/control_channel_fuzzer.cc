// The control channel's framing (u32 length, then a message) over a stream
// that hands out the peer's bytes in arbitrary pieces, as an ssh channel does.
// Input: one byte choosing the piece size (0 = as much as asked), then the
// stream. Every message received is sent back through a second channel and
// must be received from it unchanged.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "braid/byte_stream.h"
#include "fuzz_support.h"
#include "proto/control_channel.h"

using namespace braid;

namespace {

/// Reads come from a fixed buffer, at most `piece` bytes at a time; writes
/// are recorded and can be read back.
class MemoryStream : public ByteStream {
 public:
  MemoryStream(std::span<const std::uint8_t> in, std::size_t piece) : in_(in), piece_(piece) {}
  std::size_t ReadSome(void* buf, std::size_t n) override {
    std::size_t take = std::min(n, in_.size() - pos_);
    if (piece_ != 0) take = std::min(take, piece_);
    if (take == 0) return 0;  // end of stream (and no memcpy from an empty span)
    std::memcpy(buf, in_.data() + pos_, take);
    pos_ += take;
    return take;
  }
  void WriteAll(const void* buf, std::size_t n) override {
    const auto* p = static_cast<const std::uint8_t*>(buf);
    written_.insert(written_.end(), p, p + n);
  }
  void CloseWrite() override {}
  const std::vector<std::uint8_t>& written() const { return written_; }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t piece_;
  std::size_t pos_ = 0;
  std::vector<std::uint8_t> written_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  MemoryStream peer(fuzz::Bytes(data + 1, size - 1), data[0]);
  ControlChannel channel(peer);
  MemoryStream echo_out({}, 0);
  ControlChannel echo(echo_out);
  std::size_t received = 0;
  fuzz::Accepts(ErrorCode::kProtocol, [&] {
    while (std::optional<ControlMessage> m = channel.Receive()) {
      echo.Send(*m);
      ++received;
    }
  });

  // Whatever was accepted, framed again, reads back as the same messages.
  MemoryStream replay(echo_out.written(), 7);
  ControlChannel back(replay);
  MemoryStream reencoded({}, 0);
  ControlChannel again(reencoded);
  std::size_t replayed = 0;
  while (std::optional<ControlMessage> m = back.Receive()) {
    again.Send(*m);
    ++replayed;
  }
  BRAID_FUZZ_CHECK(replayed == received);
  BRAID_FUZZ_CHECK(reencoded.written() == echo_out.written());
  return 0;
}
