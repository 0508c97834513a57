#include "proto/resume_entry.h"

#include <cstring>
#include <new>

namespace braid {

namespace {
constexpr std::size_t kHeader = 16;  // the count, padded so the items stay aligned
constexpr std::size_t kItem = 16;
}  // namespace

ResumeEntry::ResumeEntry(const ResumeEntry& other)
    : id(other.id),
      count(other.count),
      piece(other.piece),
      complete(other.complete),
      compared(other.compared) {
  if (other.items_) SetItems(other.items_.get() + kHeader, other.ItemCount());
}

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
  e.SetItems(kept.data(), kept.size());
  return e;
}

ResumeEntry ResumeEntry::Compared(std::uint32_t id, std::uint32_t piece,
                                  std::vector<BlockHash> hashes) {
  ResumeEntry e;
  e.id = id;
  e.compared = true;
  e.piece = piece;
  e.SetItems(hashes.data(), hashes.size());
  return e;
}

void ResumeEntry::SetItems(const void* from, std::size_t n) {
  if (n == 0) {
    items_.reset();
    return;
  }
  // An array of std::byte from new[] is aligned for any object of its size, and the
  // ranges and hashes copied into it are implicit-lifetime types (C++20).
  items_ = std::make_unique_for_overwrite<std::byte[]>(kHeader + n * kItem);
  const std::uint64_t count = n;
  std::memcpy(items_.get(), &count, sizeof count);
  std::memcpy(items_.get() + kHeader, from, n * kItem);
}

std::size_t ResumeEntry::ItemCount() const {
  if (!items_) return 0;
  std::uint64_t count = 0;
  std::memcpy(&count, items_.get(), sizeof count);
  return static_cast<std::size_t>(count);
}

std::span<const ByteRange> ResumeEntry::kept() const {
  if (compared || !items_) return {};
  return {std::launder(reinterpret_cast<const ByteRange*>(items_.get() + kHeader)), ItemCount()};
}

std::span<const BlockHash> ResumeEntry::block_hashes() const {
  if (!compared || !items_) return {};
  return {std::launder(reinterpret_cast<const BlockHash*>(items_.get() + kHeader)), ItemCount()};
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
