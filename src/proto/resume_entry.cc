#include "proto/resume_entry.h"

namespace braid {

ResumeEntry::ResumeEntry(const ResumeEntry& other)
    : id(other.id),
      count(other.count),
      piece(other.piece),
      complete(other.complete),
      compared(other.compared),
      detail_(other.detail_ ? std::make_unique<Detail>(*other.detail_) : nullptr) {}

ResumeEntry& ResumeEntry::operator=(const ResumeEntry& other) {
  if (this != &other) *this = ResumeEntry(other);
  return *this;
}

ResumeEntry ResumeEntry::Complete(std::uint32_t first, std::uint32_t count) {
  ResumeEntry e;
  e.id = first;
  e.complete = true;
  e.count = count;
  return e;
}

ResumeEntry ResumeEntry::Partial(std::uint32_t id, std::vector<ByteRange> kept) {
  ResumeEntry e;
  e.id = id;
  if (!kept.empty()) e.detail_ = std::make_unique<Detail>(Detail{std::move(kept), {}});
  return e;
}

ResumeEntry ResumeEntry::Compared(std::uint32_t id, std::uint32_t piece,
                                  std::vector<BlockHash> hashes) {
  ResumeEntry e;
  e.id = id;
  e.compared = true;
  e.piece = piece;
  if (!hashes.empty()) e.detail_ = std::make_unique<Detail>(Detail{{}, std::move(hashes)});
  return e;
}

const std::vector<ByteRange>& ResumeEntry::kept() const {
  static const std::vector<ByteRange> kNone;
  return detail_ ? detail_->kept : kNone;
}

const std::vector<BlockHash>& ResumeEntry::block_hashes() const {
  static const std::vector<BlockHash> kNone;
  return detail_ ? detail_->hashes : kNone;
}

void AppendComplete(std::vector<ResumeEntry>& resume, std::uint32_t id) {
  if (!resume.empty() && resume.back().complete && resume.back().end() == id &&
      resume.back().count < UINT32_MAX) {
    ++resume.back().count;
    return;
  }
  resume.push_back(ResumeEntry::Complete(id, 1));
}

std::uint64_t ResumeFileCount(const std::vector<ResumeEntry>& resume) {
  std::uint64_t n = 0;
  for (const ResumeEntry& e : resume) n += e.complete ? e.count : 1;
  return n;
}

}  // namespace braid
