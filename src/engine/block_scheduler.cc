#include "engine/block_scheduler.h"

#include <algorithm>
#include <cstdlib>

namespace braid {

BlockScheduler::BlockScheduler(const std::vector<FileEntry>& files, std::uint32_t block_size)
    : files_(files), block_size_(block_size) {}

std::optional<BlockStep> BlockScheduler::Next() {
  while (file_ < files_.size()) {
    const FileEntry& f = files_[file_];
    if (f.kind == FileKind::kDirectory || f.kind == FileKind::kSymlink) {
      ++file_;
      continue;
    }
    bool unknown = f.size == kUnknownSize;
    bool at_end = unknown ? stream_ended_ : offset_ >= f.size;
    if (at_end) {
      BlockStep end{BlockStep::Kind::kFileEnd, f.id, offset_, 0};
      ++file_;
      offset_ = 0;
      stream_ended_ = false;
      last_.reset();
      return end;
    }
    std::uint64_t left = unknown ? block_size_ : f.size - offset_;
    auto length = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, block_size_));
    BlockStep block{BlockStep::Kind::kBlock, f.id, offset_, length};
    offset_ += length;
    last_ = block;
    return block;
  }
  return std::nullopt;
}

void BlockScheduler::Delivered(std::uint32_t got) {
  // Only a block just handed out can come back short, and only by shrinking.
  if (!last_ || got > last_->length) std::abort();
  offset_ -= last_->length - got;
  if (got < last_->length) stream_ended_ = true;
  last_.reset();
}

}  // namespace braid
