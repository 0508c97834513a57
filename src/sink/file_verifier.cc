#include "sink/file_verifier.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <vector>

namespace braid {
namespace {

constexpr std::size_t kHashChunk = 1u << 20;

/// One file's digest, hashed as its contiguous prefix grows; nullopt once the transfer failed.
class OneFile {
 public:
  OneFile(SinkFiles& files, VerifyFeed& feed, std::uint32_t id, HashAlgorithm hash,
          std::uint64_t block_size, const std::string& host, std::vector<std::uint8_t>& chunk)
      : files_(files),
        feed_(feed),
        id_(id),
        digest_(hash),
        block_(block_size),
        host_(host),
        chunk_(chunk) {}

  std::optional<DigestValue> Hash(const TransferState& state) {
    const std::uint32_t id = id_;
    for (;;) {
      feed_.SetBusy(false);
      std::optional<std::uint64_t> prefix = files_.WaitForPrefix(id, hashed_);
      if (!prefix || state.failed()) return std::nullopt;
      // The wait returns no new bytes only once the file is complete (it looks
      // under SinkFiles' lock; reading f.complete here raced with receivers).
      if (*prefix == hashed_) break;
      feed_.SetBusy(true);
      while (hashed_ < *prefix) {
        std::uint64_t n = HashNext(*prefix);
        hashed_ += n;
        feed_.Hashed(n);
      }
    }
    return digest_.Finish();
  }

 private:
  /// Hashes what follows `hashed_` (below `prefix`); returns how many bytes.
  std::uint64_t HashNext(std::uint64_t prefix) {
    if (std::optional<VerifyFeed::Block> b = feed_.Take(id_, hashed_)) {
      // Written from this very buffer, and inside the prefix (it was recorded first).
      digest_.Update(b->buffer->data(), b->length);
      return b->length;
    }
    // Up to the next block boundary at most, so the block after it can come from the feed.
    std::uint64_t want =
        std::min({std::uint64_t{chunk_.size()}, prefix - hashed_, block_ - hashed_ % block_});
    // Asked each time: a compared file is read where it is until its first
    // block of data makes it a partial file.
    int fd = files_.ReadDescriptor(id_);
    ssize_t got =
        ::pread(fd, chunk_.data(), static_cast<std::size_t>(want), static_cast<off_t>(hashed_));
    if (got <= 0) {
      throw BraidError(ErrorCode::kTargetUnwritable,
                       DescribeErrno(host_, files_.partial_path(id_), got < 0 ? errno : EIO));
    }
    digest_.Update(chunk_.data(), static_cast<std::size_t>(got));
    return static_cast<std::uint64_t>(got);
  }

  SinkFiles& files_;
  VerifyFeed& feed_;
  const std::uint32_t id_;
  FileDigest digest_;
  const std::uint64_t block_;
  const std::string& host_;
  std::vector<std::uint8_t>& chunk_;
  std::uint64_t hashed_ = 0;
};

}  // namespace

void VerifyFiles(SinkFiles& files, VerifyFeed& feed, HashAlgorithm hash, std::uint64_t block_size,
                 const std::string& host, const TransferState& state,
                 const std::function<void(std::uint32_t, const DigestValue&)>& verified) {
  std::vector<std::uint8_t> chunk(kHashChunk);
  const PackedList& list = files.list();
  for (std::uint32_t id = 0; id < list.size(); ++id) {
    if (!list.carries_data(id) || files.in_place(id)) continue;
    std::optional<DigestValue> digest =
        OneFile(files, feed, id, hash, block_size, host, chunk).Hash(state);
    if (!digest) return;
    verified(id, *digest);
  }
  feed.Stop();  // later repair blocks need no hashing: do not hold them up
}

}  // namespace braid
