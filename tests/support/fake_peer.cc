#include "support/fake_peer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

#include "braid/wire.h"
#include "security/crypto/payload_checksum.h"
#include "security/crypto/stream_handshake.h"

namespace braid::testing {
namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point DeadlineIn(double seconds) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

/// Waits for `events` on `fd` until `deadline`; false on timeout.
bool PollUntil(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return true;  // let the read or write report it
  }
}

}  // namespace

std::size_t TimedFdStream::ReadSome(void* buf, std::size_t n) {
  if (!PollUntil(read_fd_, POLLIN, DeadlineIn(timeout_seconds_))) {
    throw BraidError(ErrorCode::kStalled, "fake peer: read timed out");
  }
  for (;;) {
    ssize_t r = ::read(read_fd_, buf, n);
    if (r >= 0) return static_cast<std::size_t>(r);
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) return 0;
    throw BraidError(ErrorCode::kPeerLost, "fake peer: read failed");
  }
}

void TimedFdStream::WriteAll(const void* buf, std::size_t n) {
  if (!WriteFully(write_fd_, buf, n)) {
    throw BraidError(ErrorCode::kPeerLost, "fake peer: write failed");
  }
}

void TimedFdStream::CloseWrite() { ::shutdown(write_fd_, SHUT_WR); }

void FakeControl::SendRaw(std::uint32_t length_prefix, std::span<const std::uint8_t> body) {
  WireWriter w;
  w.U32(length_prefix);
  w.Bytes(body);
  stream_.WriteAll(w.data().data(), w.data().size());
}

std::optional<ControlMessage> FakeControl::Receive(std::string* why) {
  try {
    return channel_.Receive();
  } catch (const BraidError& e) {
    if (why != nullptr) *why = e.what();
    return std::nullopt;
  }
}

std::vector<std::uint8_t> EncodeRawFileList(const std::vector<FileEntry>& entries, bool last) {
  WireWriter w;
  w.U16(static_cast<std::uint16_t>(MessageType::kFileList));
  w.U8(last ? 1 : 0);
  w.U32(static_cast<std::uint32_t>(entries.size()));
  for (const FileEntry& e : entries) {
    w.U32(e.id);
    w.U16(e.top);
    w.U8(static_cast<std::uint8_t>(e.kind));
    w.U8(e.sparse ? 1 : 0);  // flags
    w.String(e.path);
    w.U64(e.size);
    w.U32(e.mode);
    w.U64(static_cast<std::uint64_t>(e.mtime_sec));
    w.U32(e.mtime_nsec);
    w.U32(e.uid);
    w.U32(e.gid);
    w.String(e.link_target);
    w.U64(e.fingerprint);
  }
  w.U32(0);  // not_listed
  return w.Take();
}

std::string FakeContent(std::uint64_t size) {
  std::string out(static_cast<std::size_t>(size), '\0');
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>((i * 131 + 7) & 0xff);
  return out;
}

bool DataFrame(int fd, std::uint32_t id, std::uint64_t offset, std::uint32_t length,
               std::optional<std::uint64_t> checksum) {
  std::string content = FakeContent(offset + length);
  std::span<const std::uint8_t> payload(
      reinterpret_cast<const std::uint8_t*>(content.data()) + offset, length);
  return SendFrame(fd,
                   FrameHeader{.type = FrameType::kData,
                               .file_id = id,
                               .length = length,
                               .offset = offset,
                               .raw_length = length},
                   payload, checksum);
}

bool FileEndFrame(int fd, std::uint32_t id, std::uint64_t size) {
  return SendFrame(fd, FrameHeader{.type = FrameType::kFileEnd, .file_id = id, .offset = size}, {});
}

bool PassEndFrame(int fd, std::uint32_t connected, std::uint32_t still) {
  return SendFrame(
      fd, FrameHeader{.type = FrameType::kPassEnd, .file_id = connected, .raw_length = still}, {});
}

bool SendFiles(int fd, const std::vector<FileEntry>& list, std::uint32_t block, std::uint64_t to) {
  for (const FileEntry& e : list) {
    if (e.kind != FileKind::kRegular) continue;
    std::uint64_t end = std::min(e.size, to);
    for (std::uint64_t at = 0; at < end; at += block) {
      auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(block, end - at));
      if (!DataFrame(fd, e.id, at, len)) return false;
    }
    if (!FileEndFrame(fd, e.id, e.size)) return false;
  }
  return true;
}

bool FinishPasses(int fd, std::uint32_t block, std::uint32_t connected, std::uint32_t still) {
  for (int pass = 0; pass < 10; ++pass) {
    if (!PassEndFrame(fd, connected, still)) return false;
    if (!ReadFrame(fd, block, 30)) return true;  // closed: the sink has all, or failed
  }
  return false;
}

UniqueFd ConnectLoopback(std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fd;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) fd.Reset();
  return fd;
}

bool WriteFully(int fd, const void* data, std::size_t n) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == ENOTSOCK) w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool ReadFully(int fd, void* data, std::size_t n, double timeout_seconds) {
  auto deadline = DeadlineIn(timeout_seconds);
  auto* p = static_cast<std::uint8_t*>(data);
  while (n > 0) {
    if (!PollUntil(fd, POLLIN, deadline)) return false;
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

bool WaitForEof(int fd, double timeout_seconds) {
  auto deadline = DeadlineIn(timeout_seconds);
  std::uint8_t buf[4096];
  for (;;) {
    if (!PollUntil(fd, POLLIN, deadline)) return false;
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return true;
  }
}

bool ConnectorHandshake(int fd, const Secret& secret, const SessionId& session, std::uint16_t index,
                        const std::optional<std::vector<std::uint8_t>>& proof_override) {
  HandshakeConnector connector(secret, session, index, RandomArray<kNonceSize>());
  std::vector<std::uint8_t> hello = connector.Hello();
  if (!WriteFully(fd, hello.data(), hello.size())) return false;
  std::vector<std::uint8_t> challenge(kChallengeSize);
  if (!ReadFully(fd, challenge.data(), challenge.size(), 10)) return false;
  std::vector<std::uint8_t> proof;
  try {
    proof = connector.OnChallenge(challenge);
  } catch (const BraidError&) {
    return false;
  }
  if (proof_override) proof = *proof_override;
  if (!WriteFully(fd, proof.data(), proof.size())) return false;
  std::uint8_t accept = 0;
  return ReadFully(fd, &accept, 1, 10) && accept == kAcceptByte;
}

RecordedHandshake RecordHandshake(const Secret& secret, const SessionId& session,
                                  std::uint16_t index) {
  HandshakeConnector connector(secret, session, index, RandomArray<kNonceSize>());
  HandshakeListener listener(secret, session, kMaxStreams, RandomArray<kNonceSize>());
  RecordedHandshake r;
  r.hello = connector.Hello();
  r.proof = connector.OnChallenge(listener.OnHello(r.hello));
  listener.OnProof(r.proof);  // it was a valid transcript for that connection
  return r;
}

bool ReplayHandshake(int fd, const RecordedHandshake& recorded) {
  if (!WriteFully(fd, recorded.hello.data(), recorded.hello.size())) return false;
  std::vector<std::uint8_t> challenge(kChallengeSize);
  if (!ReadFully(fd, challenge.data(), challenge.size(), 10)) return false;
  if (!WriteFully(fd, recorded.proof.data(), recorded.proof.size())) return false;
  std::uint8_t accept = 0;
  return ReadFully(fd, &accept, 1, 10) && accept == kAcceptByte;
}

UniqueFd ConnectStream(std::uint16_t port, const Secret& secret, const SessionId& session,
                       std::uint16_t index) {
  UniqueFd fd = ConnectLoopback(port);
  if (fd.valid() && !ConnectorHandshake(fd.get(), secret, session, index)) fd.Reset();
  return fd;
}

FakeListener::FakeListener() {
  fd_.Reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (!fd_.valid() || ::bind(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd_.get(), 64) != 0 ||
      ::getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw BraidError(ErrorCode::kInternal, "fake listener: cannot listen on 127.0.0.1");
  }
  port_ = ntohs(addr.sin_port);
}

UniqueFd FakeListener::Accept(const Secret& secret, const SessionId& session, std::uint16_t limit,
                              double timeout_seconds) {
  auto deadline = DeadlineIn(timeout_seconds);
  if (!PollUntil(fd_.get(), POLLIN, deadline)) return UniqueFd();
  UniqueFd conn(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!conn.valid()) return conn;
  HandshakeListener listener(secret, session, limit, RandomArray<kNonceSize>());
  std::vector<std::uint8_t> hello(kHelloSize);
  std::vector<std::uint8_t> proof(kProofSize);
  try {
    if (!ReadFully(conn.get(), hello.data(), hello.size(), timeout_seconds)) return UniqueFd();
    std::vector<std::uint8_t> challenge = listener.OnHello(hello);
    if (!WriteFully(conn.get(), challenge.data(), challenge.size())) return UniqueFd();
    if (!ReadFully(conn.get(), proof.data(), proof.size(), timeout_seconds)) return UniqueFd();
    listener.OnProof(proof);
  } catch (const BraidError&) {
    return UniqueFd();
  }
  if (!WriteFully(conn.get(), &kAcceptByte, 1)) return UniqueFd();
  return conn;
}

bool SendFrame(int fd, FrameHeader header, std::span<const std::uint8_t> payload,
               std::optional<std::uint64_t> checksum) {
  header.checksum = checksum ? *checksum : PayloadChecksum(payload);
  FrameHeaderBytes head = EncodeFrameHeader(header);
  return WriteFully(fd, head.data(), head.size()) &&
         (payload.empty() || WriteFully(fd, payload.data(), payload.size()));
}

std::optional<ReceivedFrame> ReadFrame(int fd, std::uint32_t max_payload, double timeout_seconds) {
  FrameHeaderBytes head{};
  if (!ReadFully(fd, head.data(), head.size(), timeout_seconds)) return std::nullopt;
  ReceivedFrame f;
  try {
    f.header = DecodeFrameHeader(head, max_payload);
  } catch (const BraidError&) {
    return std::nullopt;
  }
  f.payload.resize(f.header.length);
  if (!f.payload.empty() && !ReadFully(fd, f.payload.data(), f.payload.size(), timeout_seconds)) {
    return std::nullopt;
  }
  return f;
}

}  // namespace braid::testing
