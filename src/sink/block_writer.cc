#include "sink/block_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "security/crypto/payload_checksum.h"

namespace braid {

void BlockWriter::OrderedStream(UniqueFd fd, std::string host, std::string target,
                                std::uint32_t file_id, std::uint64_t window, HashAlgorithm hash) {
  stream_fd_ = std::move(fd);
  stream_host_ = std::move(host);
  stream_target_ = std::move(target);
  if (hash != HashAlgorithm::kNone) stream_digest_.emplace(hash);
  ordered_ = std::make_unique<OrderedWriter>(
      window,
      [this, file_id](std::uint64_t offset, const std::uint8_t* data, std::uint32_t length) {
        WriteStream(file_id, offset, data, length);
      });
}

void BlockWriter::WriteStream(std::uint32_t file_id, std::uint64_t offset, const std::uint8_t* data,
                              std::uint32_t length) {
  std::uint32_t done = 0;
  while (done < length) {
    ssize_t n = ::write(stream_fd_.get(), data + done, length - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) {
        // "Broken pipe" says little: the reader (a -N command, a pipe on
        // stdout) went away before all of the data was written to it.
        throw BraidError(ErrorCodeForTargetErrno(errno),
                         (stream_host_.empty() ? "" : stream_host_ + ": ") + stream_target_ +
                             " stopped reading before the end of the data");
      }
      throw BraidError(ErrorCodeForTargetErrno(errno),
                       DescribeErrno(stream_host_, stream_target_, errno));
    }
    done += static_cast<std::uint32_t>(n);
  }
  if (stream_digest_) stream_digest_->Update(data, length);
  bytes_.fetch_add(length);
  files_.RecordStreamed(file_id, offset, length);
}

void BlockWriter::OrderedFiles(const PackedList& entries, std::uint64_t window) {
  order_base_.assign(entries.size(), 0);
  std::uint64_t next = 0;
  for (std::uint32_t id = 0; id < entries.size(); ++id) {
    if (!entries.carries_data(id)) continue;
    order_base_[id] = next;
    order_starts_.emplace_back(next, id);
    // Only a lone stdin source has no size; it is then the only file.
    const std::uint64_t size = entries.file_size(id);
    next += size == kUnknownSize ? 0 : size;
  }
  ordered_ = std::make_unique<OrderedWriter>(
      window, [this](std::uint64_t position, const std::uint8_t* data, std::uint32_t length) {
        auto it = std::upper_bound(order_starts_.begin(), order_starts_.end(),
                                   std::make_pair(position, UINT32_MAX));
        std::uint32_t id = std::prev(it)->second;
        WriteAt(id, position - order_base_[id], data, length, std::nullopt);
      });
}

bool BlockWriter::WaitForRoom(std::uint32_t id, std::uint64_t offset) {
  return !ordered_ || ordered_->WaitForRoom(PositionOf(id, offset));
}

void BlockWriter::Write(std::uint32_t id, std::uint64_t offset, BufferRef buffer,
                        std::uint32_t length, std::optional<std::uint64_t> raw_checksum) {
  if (discard_) {
    bytes_.fetch_add(length);
    files_.RecordStreamed(id, offset, length);
    return;
  }
  if (ordered_) {
    ordered_->Submit(PositionOf(id, offset), std::move(buffer), length);
    return;
  }
  if (!verify_feed_) {
    WriteAt(id, offset, buffer->data(), length, raw_checksum);
    return;
  }
  verify_feed_->Announce(id, offset);
  bool written = false;
  try {
    written = WriteAt(id, offset, buffer->data(), length, raw_checksum);
  } catch (...) {
    verify_feed_->Withdraw(id, offset);
    throw;
  }
  if (!written) {
    verify_feed_->Withdraw(id, offset);
    return;
  }
  verify_feed_->Offer({id, offset, length, std::move(buffer)});
}

bool BlockWriter::WriteAt(std::uint32_t id, std::uint64_t offset, const std::uint8_t* data,
                          std::uint32_t length, std::optional<std::uint64_t> checksum) {
  if (!files_.WriteBlock(id, offset, data, length)) return false;
  bytes_.fetch_add(length);
  // A nameless file leaves nothing to resume from, so nothing to journal.
  if (files_.anonymous(id)) return true;
  if (!checksum) checksum = PayloadChecksum({data, length});
  checkpoints_.Written(id, JournalRecord{offset, length, *checksum});
  return true;
}

void BlockWriter::Abort() {
  if (ordered_) ordered_->Abort();
}

}  // namespace braid
