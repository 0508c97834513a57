#include "source/block_scheduler.h"

#include <algorithm>
#include <cstdlib>

namespace braid {

BlockScheduler::BlockScheduler(const PackedList& files, std::uint32_t block_size,
                               std::vector<ResumeEntry> resume, bool hash_kept)
    : files_(files), block_size_(block_size), resume_(std::move(resume)), hash_kept_(hash_kept) {}

BlockScheduler::BlockScheduler(const std::vector<FileEntry>& files, std::uint32_t block_size,
                               std::vector<ResumeEntry> resume, bool hash_kept)
    : owned_(PackedList(files)),
      files_(*owned_),
      block_size_(block_size),
      resume_(std::move(resume)),
      hash_kept_(hash_kept) {}

const ResumeEntry* BlockScheduler::ResumeOf(std::uint32_t id) {
  while (resume_cursor_ < resume_.size() && resume_[resume_cursor_].end() <= id) ++resume_cursor_;
  if (resume_cursor_ == resume_.size() || resume_[resume_cursor_].id > id) return nullptr;
  return &resume_[resume_cursor_];
}

bool BlockScheduler::Kept(const ResumeEntry& r, std::uint64_t begin, std::uint64_t end) {
  // Blocks come in offset order, so the cursor only moves forward.
  const std::span<const ByteRange> kept = r.kept();
  while (kept_cursor_ < kept.size() && kept[kept_cursor_].second <= begin) ++kept_cursor_;
  return kept_cursor_ < kept.size() && kept[kept_cursor_].first <= begin &&
         kept[kept_cursor_].second >= end;
}

std::optional<BlockStep> BlockScheduler::Next() {
  while (file_ < files_.size()) {
    const auto id = static_cast<std::uint32_t>(file_);
    const FileKind kind = files_.kind(id);
    const std::uint64_t size = files_.file_size(id);
    // Only a regular file can resume: a stream is read in order, once.
    const ResumeEntry* r = kind != FileKind::kRegular ? nullptr : ResumeOf(id);
    if (!files_.carries_data(id) || (r && r->complete)) {
      ++file_;
      continue;
    }
    bool unknown = size == kUnknownSize;
    bool at_end = unknown ? stream_ended_ : offset_ >= size;
    if (at_end) {
      BlockStep end{BlockStep::Kind::kFileEnd, id, offset_, 0};
      ++file_;
      offset_ = 0;
      stream_ended_ = false;
      kept_cursor_ = 0;
      last_.reset();
      return end;
    }
    std::uint64_t left = unknown ? block_size_ : size - offset_;
    auto length = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, block_size_));
    BlockStep block{BlockStep::Kind::kBlock, id, offset_, length};
    offset_ += length;
    // Only a seekable file can resume; a block partly kept is sent whole.
    if (r && !unknown && Kept(*r, block.offset, block.offset + length)) {
      if (!hash_kept_) continue;
      block.kind = BlockStep::Kind::kHashOnly;
    }
    if (r && !unknown && r->compared) {
      block.compared = true;
      Expect(*r, block);
    }
    last_ = block;
    return block;
  }
  return std::nullopt;
}

void BlockScheduler::Expect(const ResumeEntry& r, BlockStep& block) const {
  // Pieces that do not tile the block cannot be compared with it: sent as data.
  const std::uint32_t piece = r.piece;
  if (piece == 0 || piece > block_size_ || block_size_ % piece != 0) return;
  const std::uint64_t first = block.offset / piece;
  if (first >= r.block_hashes().size()) return;
  const std::uint64_t count =
      std::min<std::uint64_t>((block.length + piece - 1) / piece, r.block_hashes().size() - first);
  block.expected =
      r.block_hashes().subspan(static_cast<std::size_t>(first), static_cast<std::size_t>(count));
  block.piece = piece;
}

void BlockScheduler::Delivered(std::uint32_t got) {
  // Only a block just handed out can come back short, and only by shrinking.
  if (!last_ || got > last_->length) std::abort();
  offset_ -= last_->length - got;
  if (got < last_->length) stream_ended_ = true;
  last_.reset();
}

}  // namespace braid
