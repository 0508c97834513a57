#include "proto/control_channel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "braid/wire.h"

namespace braid {

void ControlChannel::Send(const ControlMessage& message) { Send(std::span(&message, 1)); }

void ControlChannel::Send(std::span<const ControlMessage> messages) {
  WireWriter w;
  for (const ControlMessage& message : messages) {
    // Encoded in place behind its length, not into a vector of its own and
    // copied: a re-run's SinkReady over a million files is megabytes.
    const std::size_t at = w.size();
    w.U32(0);
    AppendMessage(message, w);
    w.U32At(at, static_cast<std::uint32_t>(w.size() - at - 4));
  }
  MutexLock lock(send_mutex_);
  stream_.WriteAll(w.data().data(), w.data().size());
}

bool ControlChannel::ReadExactly(std::uint8_t* out, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    if (ahead_begin_ == ahead_end_) {
      ahead_begin_ = 0;
      ahead_end_ = stream_.ReadSome(read_ahead_.data(), read_ahead_.size());
      if (ahead_end_ == 0) {
        if (got == 0) return false;
        WireReader::Fail("control stream ended inside a message");
      }
    }
    std::size_t take = std::min(n - got, ahead_end_ - ahead_begin_);
    std::memcpy(out + got, read_ahead_.data() + ahead_begin_, take);
    ahead_begin_ += take;
    got += take;
  }
  return true;
}

std::optional<ControlMessage> ControlChannel::Receive() {
  std::uint8_t prefix[4];
  if (!ReadExactly(prefix, sizeof prefix)) return std::nullopt;
  std::uint32_t len = WireReader(prefix).U32();
  if (len < 2 || len > kMaxControlMessage) WireReader::Fail("control message length out of range");
  std::vector<std::uint8_t> body(len);
  if (!ReadExactly(body.data(), body.size()))
    WireReader::Fail("control stream ended inside a message");
  return DecodeMessage(body);
}

}  // namespace braid
