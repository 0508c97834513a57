#include "engine/source_session.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "braid/unique_fd.h"
#include "engine/block_scheduler.h"
#include "engine/blocking_queue.h"
#include "engine/buffer_pool.h"
#include "engine/token_bucket.h"
#include "security/md5_digest.h"
#include "transport/block_codec.h"
#include "transport/data_connector.h"
#include "transport/data_socket.h"
#include "transport/tcp_info.h"

namespace braid {
namespace {

constexpr auto kConnectTimeout = std::chrono::seconds(15);

/// One frame waiting to be sent: a block (payload in `buffer`) or a file end.
struct OutFrame {
  FrameHeader header;
  BufferRef buffer;
  Md5Value md5{};
};

/// What the hasher sees, in file order.
struct HashItem {
  std::uint32_t file_id = 0;
  BufferRef buffer;  ///< null for the file's end
  std::uint32_t length = 0;
  std::uint64_t end_size = 0;
};

}  // namespace

struct SourceSession::Impl {
  std::vector<SourceFile> files;
  std::vector<FileEntry> entries;
  SourceStart start;
  std::string host;
  BlockingQueue<OutFrame> send_queue;
  BlockingQueue<HashItem> hash_queue;
  std::unique_ptr<BufferPool> pool;
  std::vector<std::unique_ptr<DataSocket>> sockets;
  std::vector<std::uint16_t> stream_index;  ///< handshake index of sockets[i]
  /// Guards filling `sockets` against StreamSamples() on the reporter thread;
  /// senders need no lock, they start after the vector is complete.
  mutable std::mutex sockets_mutex;
  /// Bytes sent by sockets[i]; one writer each, so per-stream reports cost no contention.
  std::array<std::atomic<std::uint64_t>, kMaxStreamSamples> stream_bytes{};
  /// -x: one bucket for all senders, so the limit is on the total; null = unlimited.
  std::unique_ptr<RateLimiter> limiter;
  /// Readable once the transfer is aborted: wakes a reader blocked on a pipe
  /// or terminal that may never deliver another byte.
  UniqueFd abort_event{::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)};

  void ReadAll(TransferState& state);
  void HashAll(TransferState& state);
  void SendAll(DataSocket& socket, TransferState& state);
  std::atomic<std::uint64_t>& BytesOf(const DataSocket& socket) {
    for (std::size_t i = 0; i < sockets.size(); ++i) {
      if (sockets[i].get() == &socket) return stream_bytes[i];
    }
    std::abort();  // a sender always runs one of our sockets
  }
  std::uint32_t ReadBlock(int fd, const SourceFile& f, const BlockStep& step, std::uint8_t* out);
  [[noreturn]] void ReadFailed(const SourceFile& f, int err) const {
    throw BraidError(ErrorCode::kSourceUnreadable, DescribeErrno(host, f.local_path, err));
  }
};

SourceSession::SourceSession(std::vector<SourceFile> files, SourceStart start, std::string host)
    : impl_(std::make_unique<Impl>()) {
  impl_->files = std::move(files);
  for (const auto& f : impl_->files) impl_->entries.push_back(f.entry);
  impl_->start = std::move(start);
  impl_->host = std::move(host);
}

SourceSession::~SourceSession() = default;

std::uint32_t SourceSession::Impl::ReadBlock(int fd, const SourceFile& f, const BlockStep& step,
                                             std::uint8_t* out) {
  bool seekable = f.entry.kind == FileKind::kRegular;
  std::uint32_t got = 0;
  while (got < step.length) {
    if (!seekable) {
      pollfd fds[2] = {{fd, POLLIN, 0}, {abort_event.get(), POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0 && errno != EINTR) ReadFailed(f, errno);
      if (fds[1].revents != 0) return got;  // aborted; the caller sees the failure
      if (fds[0].revents == 0) continue;
    }
    ssize_t n =
        seekable ? ::pread(fd, out + got, step.length - got, static_cast<off_t>(step.offset + got))
                 : ::read(fd, out + got, step.length - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      ReadFailed(f, errno);
    }
    if (n == 0) break;
    got += static_cast<std::uint32_t>(n);
  }
  return got;
}

void SourceSession::Impl::ReadAll(TransferState& state) {
  BlockScheduler scheduler(entries, start.params.block_size);
  UniqueFd fd;
  std::uint32_t open_id = UINT32_MAX;
  while (!state.failed()) {
    std::optional<BlockStep> step = scheduler.Next();
    if (!step) break;
    const SourceFile& f = files[step->file_id];
    if (step->kind == BlockStep::Kind::kFileEnd) {
      fd.Reset();
      open_id = UINT32_MAX;
      if (start.params.md5) {
        hash_queue.Push(HashItem{step->file_id, nullptr, 0, step->offset});
      } else {
        OutFrame end;
        end.header = {
            .type = FrameType::kFileEnd, .file_id = step->file_id, .offset = step->offset};
        send_queue.Push(std::move(end));
      }
      continue;
    }
    if (open_id != step->file_id) {
      if (f.local_path == "-") {
        fd.Reset(::dup(STDIN_FILENO));
      } else {
        fd.Reset(::open(f.local_path.c_str(), O_RDONLY | O_CLOEXEC));
      }
      if (!fd.valid()) ReadFailed(f, errno);
      if (f.entry.kind == FileKind::kRegular) {
        ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
      }
      open_id = step->file_id;
    }
    BufferRef buffer = pool->Acquire();
    if (!buffer) break;
    std::uint32_t got = ReadBlock(fd.get(), f, *step, buffer->data());
    if (state.failed()) break;
    if (f.entry.size == kUnknownSize) {
      scheduler.Delivered(got);
    } else if (got < step->length) {
      throw BraidError(ErrorCode::kSourceUnreadable, (host.empty() ? "" : host + ":") +
                                                         f.local_path +
                                                         ": file shrank while it was being copied");
    }
    if (got == 0) continue;
    OutFrame frame;
    frame.header = {.type = FrameType::kData,
                    .file_id = step->file_id,
                    .length = got,
                    .offset = step->offset,
                    .raw_length = got};
    frame.buffer = buffer;
    if (start.params.md5) hash_queue.Push(HashItem{step->file_id, buffer, got, 0});
    send_queue.Push(std::move(frame));
  }
  if (start.params.md5) {
    hash_queue.Close();
  } else {
    send_queue.Close();
  }
}

void SourceSession::Impl::HashAll(TransferState& state) {
  Md5Digest digest;
  while (std::optional<HashItem> item = hash_queue.Pop()) {
    if (item->buffer) {
      digest.Update(item->buffer->data(), item->length);
      continue;
    }
    OutFrame end;
    end.header = {.type = FrameType::kFileEnd,
                  .flags = kFlagHasMd5,
                  .file_id = item->file_id,
                  .length = 16,
                  .offset = item->end_size};
    end.md5 = digest.Finish();
    send_queue.Push(std::move(end));
  }
  (void)state;
  send_queue.Close();
}

void SourceSession::Impl::SendAll(DataSocket& socket, TransferState& state) {
  std::atomic<std::uint64_t>& stream_sent = BytesOf(socket);
  std::optional<BlockCompressor> compressor;
  if (start.params.compress_level > 0) {
    compressor.emplace(start.params.compress_level, start.params.block_size);
  }
  while (std::optional<OutFrame> frame = send_queue.Pop()) {
    if (frame->header.type == FrameType::kData) {
      std::span<const std::uint8_t> payload(frame->buffer->data(), frame->header.length);
      if (compressor) {
        EncodedBlock encoded = compressor->Encode(payload);
        payload = encoded.payload;
        if (encoded.compressed) {
          frame->header.flags |= kFlagCompressed;
          frame->header.length = static_cast<std::uint32_t>(payload.size());
        }
      }
      frame->header.checksum = PayloadChecksum(payload);
      if (limiter && !limiter->Acquire(frame->header.length)) break;  // aborted
      socket.SendFrame(frame->header, payload);
      frame->buffer.reset();
      state.bytes.fetch_add(frame->header.raw_length);
      state.wire_bytes.fetch_add(frame->header.length);
      stream_sent.fetch_add(frame->header.length, std::memory_order_relaxed);
    } else {
      std::span<const std::uint8_t> md5;
      if ((frame->header.flags & kFlagHasMd5) != 0) md5 = frame->md5;
      frame->header.checksum = PayloadChecksum(md5);
      socket.SendFrame(frame->header, md5);
    }
  }
  if (state.failed()) return;
  // Every stream is connected before the first frame goes out, so the count
  // tells the sink how many stream ends to wait for.
  auto count = static_cast<std::uint32_t>(sockets.size());
  socket.SendFrame(FrameHeader{.type = FrameType::kStreamEnd, .file_id = count}, {});
  ::shutdown(socket.fd(), SHUT_WR);
  // Wait for the sink to close, so the last frames are read before we go.
  std::uint8_t byte;
  socket.ReadExact(&byte, 1, /*eof_ok=*/true);
}

void SourceSession::Run(const std::function<void(const std::string&)>& warn) {
  Impl& s = *impl_;
  const TransferParams& p = s.start.params;
  // Without this, a congestion control this kernel lacks would surface as a failed connect.
  CheckCongestionControl(p.congestion_control, s.host);
  ConnectResult connected = ConnectDataStreams(
      s.start.addresses, s.start.port, p.secret, p.session, p.streams,
      SocketTuning{.window = p.window, .tos = p.tos, .congestion_control = p.congestion_control},
      kConnectTimeout);
  if (connected.streams.empty()) {
    throw BraidError(ErrorCode::kDataConnect,
                     "no data stream could connect: " + connected.last_error);
  }
  if (connected.streams.size() < p.streams) {
    warn("only " + std::to_string(connected.streams.size()) + " of " + std::to_string(p.streams) +
         " data streams connected (" + connected.last_error + "); continuing with those");
  }
  {
    std::lock_guard lock(s.sockets_mutex);
    for (auto& c : connected.streams) {
      s.sockets.push_back(std::make_unique<DataSocket>(std::move(c.fd), c.peer));
      s.stream_index.push_back(c.index);
    }
  }
  state_.streams = static_cast<std::uint16_t>(s.sockets.size());
  // Enough buffers for every stream to have one in flight, the reader to run
  // ahead, and the hasher to lag a little without stalling the senders.
  std::size_t buffers = 2 * s.sockets.size() + (p.md5 ? 8 : 4);
  s.pool = std::make_unique<BufferPool>(p.block_size, buffers);
  if (p.rate > 0) {
    s.limiter = std::make_unique<RateLimiter>(p.rate, BurstDepth(p.rate, p.block_size));
  }
  state_.OnAbort([&s] {
    std::uint64_t one = 1;
    (void)!::write(s.abort_event.get(), &one, sizeof one);
    s.send_queue.Abort();
    s.hash_queue.Abort();
    s.pool->Close();
    if (s.limiter) s.limiter->Abort();
    for (auto& sock : s.sockets) sock->Shutdown();
  });

  std::vector<std::thread> threads;
  threads.emplace_back(state_.Guarded([&] { s.ReadAll(state_); }));
  if (p.md5) threads.emplace_back(state_.Guarded([&] { s.HashAll(state_); }));
  for (auto& sock : s.sockets) {
    DataSocket* raw = sock.get();
    threads.emplace_back(state_.Guarded([&, raw] { s.SendAll(*raw, state_); }));
  }
  for (auto& t : threads) t.join();
  if (auto e = state_.error()) throw *e;
}

std::vector<StreamSample> SourceSession::StreamSamples() const {
  const Impl& s = *impl_;
  std::lock_guard lock(s.sockets_mutex);
  std::vector<StreamSample> out;
  out.reserve(s.sockets.size());
  for (std::size_t i = 0; i < s.sockets.size(); ++i) {
    StreamSample sample;
    sample.index = s.stream_index[i];
    sample.bytes = s.stream_bytes[i].load(std::memory_order_relaxed);
    if (std::optional<TcpSample> tcp = SampleTcpInfo(s.sockets[i]->fd())) {
      sample.rtt_us = tcp->rtt_us;
      sample.min_rtt_us = tcp->min_rtt_us;
      sample.cwnd = tcp->cwnd;
      sample.retrans = tcp->total_retrans;
      sample.delivery_rate = tcp->delivery_rate_Bps;
    }
    out.push_back(sample);
  }
  return out;
}

}  // namespace braid
