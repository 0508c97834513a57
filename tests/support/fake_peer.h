#pragma once
/// Building blocks for a malicious peer that speaks braid's real protocol:
/// control messages through the real codec (or raw bytes where the codec
/// would refuse to say something), data streams with the real HMAC handshake,
/// and frames with whatever header a test wants. Used by the hostile-peer
/// tests (playing the agent) and by braid_fake_serve (playing a source server).
/// No gtest here: the fake server links it too.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "braid/byte_stream.h"
#include "braid/unique_fd.h"
#include "proto/control_channel.h"
#include "proto/control_message.h"
#include "transport/data_frame.h"

namespace braid::testing {

/// A ByteStream over descriptors whose reads give up after a timeout
/// (BraidError kStalled), so a peer that goes quiet cannot hang a test.
class TimedFdStream : public ByteStream {
 public:
  TimedFdStream(int read_fd, int write_fd, double timeout_seconds)
      : read_fd_(read_fd), write_fd_(write_fd), timeout_seconds_(timeout_seconds) {}
  std::size_t ReadSome(void* buf, std::size_t n) override;
  void WriteAll(const void* buf, std::size_t n) override;
  void CloseWrite() override;

 private:
  int read_fd_;
  int write_fd_;
  double timeout_seconds_;
};

/// The control protocol from the peer's side, with timeouts.
class FakeControl {
 public:
  FakeControl(int read_fd, int write_fd, double timeout_seconds = 10)
      : stream_(read_fd, write_fd, timeout_seconds), channel_(stream_) {}
  void Send(const ControlMessage& message) { channel_.Send(message); }
  /// A length prefix and then `body` exactly as given: a message the codec
  /// would never produce (or a length that lies).
  void SendRaw(std::uint32_t length_prefix, std::span<const std::uint8_t> body);
  /// The next message; nullopt at end of stream or on any failure (`why` says).
  std::optional<ControlMessage> Receive(std::string* why = nullptr);
  /// Skips Progress, Warning, Kept and FileDone until a message of type T, an Error
  /// (returned in `error`), or the end (nullopt).
  template <typename T>
  std::optional<T> Await(std::optional<ErrorMessage>* error = nullptr) {
    for (;;) {
      std::optional<ControlMessage> m = Receive();
      if (!m) return std::nullopt;
      if (auto* t = std::get_if<T>(&*m)) return *t;
      if (auto* e = std::get_if<ErrorMessage>(&*m)) {
        if (error != nullptr) *error = *e;
        return std::nullopt;
      }
      if (std::holds_alternative<Progress>(*m) || std::holds_alternative<Warning>(*m) ||
          std::holds_alternative<Kept>(*m) || std::holds_alternative<FileDone>(*m)) {
        continue;
      }
      return std::nullopt;
    }
  }

 private:
  TimedFdStream stream_;
  ControlChannel channel_;
};

/// Encodes a FileList by hand, so it can carry names the codec's decoder
/// refuses (`..`, absolute paths, NUL): what a malicious peer would send.
std::vector<std::uint8_t> EncodeRawFileList(const std::vector<FileEntry>& entries, bool last);

/// A TCP connection to 127.0.0.1:port; invalid on failure.
UniqueFd ConnectLoopback(std::uint16_t port);

/// The connector's side of the handshake on `fd`; true when the listener
/// sent its accept byte. `proof_override` replaces the proof sent (a wrong
/// HMAC, or one replayed from another connection).
bool ConnectorHandshake(int fd, const Secret& secret, const SessionId& session, std::uint16_t index,
                        const std::optional<std::vector<std::uint8_t>>& proof_override = {});
/// A handshake as an eavesdropper would have recorded it from an earlier
/// connection: the connector's HELLO and its valid PROOF for that
/// connection's listener nonce (made here with an in-process listener).
struct RecordedHandshake {
  std::vector<std::uint8_t> hello;
  std::vector<std::uint8_t> proof;
};
RecordedHandshake RecordHandshake(const Secret& secret, const SessionId& session,
                                  std::uint16_t index);
/// Replays a recorded HELLO and PROOF on `fd`; true if the listener accepted.
bool ReplayHandshake(int fd, const RecordedHandshake& recorded);
/// Connects and authenticates a data stream; invalid fd if refused.
UniqueFd ConnectStream(std::uint16_t port, const Secret& secret, const SessionId& session,
                       std::uint16_t index);

/// A listening socket on 127.0.0.1 for a fake sink.
class FakeListener {
 public:
  FakeListener();
  std::uint16_t port() const { return port_; }
  /// Accepts one connection and runs the listener's handshake; invalid fd on
  /// failure or after `timeout_seconds`.
  UniqueFd Accept(const Secret& secret, const SessionId& session, std::uint16_t limit,
                  double timeout_seconds);

 private:
  UniqueFd fd_;
  std::uint16_t port_ = 0;
};

/// Sends one frame. The checksum is computed from `payload` unless
/// `checksum` is given (a lying one).
bool SendFrame(int fd, FrameHeader header, std::span<const std::uint8_t> payload,
               std::optional<std::uint64_t> checksum = std::nullopt);

struct ReceivedFrame {
  FrameHeader header;
  std::vector<std::uint8_t> payload;
};
/// The next frame, or nullopt at end of stream, on a malformed frame or after
/// `timeout_seconds`.
std::optional<ReceivedFrame> ReadFrame(int fd, std::uint32_t max_payload, double timeout_seconds);

/// Waits up to `timeout_seconds` for `fd` to reach end of stream (or an error);
/// true if it did.
bool WaitForEof(int fd, double timeout_seconds);

/// The bytes braid_fake_serve sends for a file of `size` bytes.
std::string FakeContent(std::uint64_t size);

/// A data frame of FakeContent bytes [offset, offset+length) for file `id`,
/// with a lying `checksum` if given.
bool DataFrame(int fd, std::uint32_t id, std::uint64_t offset, std::uint32_t length,
               std::optional<std::uint64_t> checksum = std::nullopt);
bool FileEndFrame(int fd, std::uint32_t id, std::uint64_t size);
/// A pass end from a source with one stream.
/// A pass end: `connected` streams in all, `still` of them left (0: all).
bool PassEndFrame(int fd, std::uint32_t connected = 1, std::uint32_t still = 0);
/// Every regular file of `list` as FakeContent up to `to` bytes (all of it
/// by default) in `block`-sized frames, each followed by its file end.
bool SendFiles(int fd, const std::vector<FileEntry>& list, std::uint32_t block,
               std::uint64_t to = UINT64_MAX);
/// Ends passes until the sink closes the stream; resend requests are
/// answered with nothing new (at most 10 passes). True when it closed. The
/// pass ends say `connected` and `still` as PassEndFrame's.
bool FinishPasses(int fd, std::uint32_t block, std::uint32_t connected = 1,
                  std::uint32_t still = 0);

/// Writes exactly `n` bytes; false on failure.
bool WriteFully(int fd, const void* data, std::size_t n);
/// Reads exactly `n` bytes within `timeout_seconds`; false on end of stream,
/// error or timeout.
bool ReadFully(int fd, void* data, std::size_t n, double timeout_seconds);

}  // namespace braid::testing
