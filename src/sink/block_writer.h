#pragma once
/// Where the sink puts a block once its frame checked out, one of three ways:
///  - nowhere: /dev/null takes blocks in any order, so a memory-to-memory test
///    (iperf's use) pays for no ordering it does not need;
///  - in order, through an OrderedWriter: a stream target (stdout, a pipe, a
///    device), or -o to files, where one window orders blocks across all the
///    files laid end to end;
///  - at its offset into its partial file, journaled for resume, and with -E
///    offered to the verifier.
/// Counts the bytes written. Set up before the receivers start; then safe
/// from every receiver at once.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "braid/unique_fd.h"
#include "security/crypto/file_digest.h"
#include "session/buffer_pool.h"
#include "sink/ordered_writer.h"
#include "sink/sink_checkpoints.h"
#include "sink/sink_files.h"
#include "sink/verify_feed.h"

namespace braid {

class BlockWriter {
 public:
  /// `bytes` counts the file bytes written (the transfer's progress).
  BlockWriter(SinkFiles& files, SinkCheckpoints& checkpoints, std::atomic<std::uint64_t>& bytes)
      : files_(files), checkpoints_(checkpoints), bytes_(bytes) {}

  /// Set-up, one of these at most, before any block arrives:
  /// /dev/null: count the blocks, write nothing.
  void Discard() { discard_ = true; }
  /// A stream target: every block in order into `fd` (`host`:`target` in an
  /// error); with `hash`, the digest of what was written (FinishStreamDigest).
  void OrderedStream(UniqueFd fd, std::string host, std::string target, std::uint32_t file_id,
                     std::uint64_t window, HashAlgorithm hash);
  /// -o to files: in order across all of `entries`.
  void OrderedFiles(const PackedList& entries, std::uint64_t window);
  /// -E to files: each written block also goes to `feed`.
  void FeedVerifier(VerifyFeed* feed) { verify_feed_ = feed; }

  /// Blocks are written in order: a lost stream cannot be repaired.
  bool ordered() const { return ordered_ != nullptr; }
  /// Blocks go to their offsets in files, where a write may wait for the disk.
  bool writes_at_offsets() const { return !discard_ && !ordered(); }
  /// Receiver, before it reads a block's payload: waits until the block fits
  /// the ordered window (at once for the other ways); false once aborted.
  bool WaitForRoom(std::uint32_t id, std::uint64_t offset);
  /// Receiver: a checked block. `raw_checksum`: the checksum of exactly these
  /// bytes when the frame carried them uncompressed (saves hashing them again).
  void Write(std::uint32_t id, std::uint64_t offset, BufferRef buffer, std::uint32_t length,
             std::optional<std::uint64_t> raw_checksum);
  /// Receiver, writing at offsets: a hole of a regular file (SinkFiles::RecordHole).
  void Hole(std::uint32_t id, std::uint64_t offset, std::uint32_t length) {
    if (files_.RecordHole(id, offset, length)) bytes_.fetch_add(length);
  }
  /// OrderedStream's target closed, once its file is complete (-N o: the
  /// command reading it sees its end).
  void CloseStream() { stream_fd_.Reset(); }
  /// The digest of everything OrderedStream wrote; call once, when its file is complete.
  DigestValue FinishStreamDigest() { return stream_digest_->Finish(); }
  void Abort();

 private:
  std::uint64_t PositionOf(std::uint32_t id, std::uint64_t offset) const {
    return order_base_.empty() ? offset : order_base_[id] + offset;
  }
  /// Writes a block at its offset unless it is already there; true if it wrote it.
  bool WriteAt(std::uint32_t id, std::uint64_t offset, const std::uint8_t* data,
               std::uint32_t length, std::optional<std::uint64_t> checksum);
  /// OrderedStream's writes, in order, on one receiver at a time (the ordered writer's lock).
  void WriteStream(std::uint32_t file_id, std::uint64_t offset, const std::uint8_t* data,
                   std::uint32_t length);

  /// Everything below is set before the receivers start and never replaced;
  /// what it points to locks itself.
  SinkFiles& files_;
  SinkCheckpoints& checkpoints_;
  std::atomic<std::uint64_t>& bytes_;
  bool discard_ = false;
  std::unique_ptr<OrderedWriter> ordered_;
  VerifyFeed* verify_feed_ = nullptr;
  /// -o to files: where each file starts when the files are laid end to end,
  /// as (start, id) pairs in order, and by id.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> order_starts_;
  std::vector<std::uint64_t> order_base_;
  UniqueFd stream_fd_;
  std::string stream_host_;
  std::string stream_target_;
  /// -E onto a stream target: the digest of what was written, in order. Used
  /// only under the ordered writer's lock, and by FinishStreamDigest from
  /// the write that completes the file (in that lock too).
  std::optional<FileDigest> stream_digest_;
};

}  // namespace braid
