#include "sink/verify_feed.h"

#include <algorithm>
#include <utility>

namespace braid {
namespace {

bool Before(std::uint32_t a_id, std::uint64_t a_offset, std::uint32_t b_id,
            std::uint64_t b_offset) {
  return a_id < b_id || (a_id == b_id && a_offset < b_offset);
}

}  // namespace

void VerifyFeed::Announce(std::uint32_t file_id, std::uint64_t offset) {
  MutexLock lock(mutex_);
  pending_.emplace_back(file_id, offset);
}

bool VerifyFeed::Pending(std::uint32_t file_id, std::uint64_t offset) const {
  for (const auto& p : pending_) {
    if (p.first == file_id && p.second == offset) return true;
  }
  return false;
}

void VerifyFeed::Unannounce(std::uint32_t file_id, std::uint64_t offset) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (it->first == file_id && it->second == offset) {
      pending_.erase(it);
      return;
    }
  }
}

void VerifyFeed::Offer(Block block) {
  BufferRef dropped;  // released outside the lock
  {
    MutexLock lock(mutex_);
    Unannounce(block.file_id, block.offset);
    offered_ += block.length;
    if (!stopped_) blocks_.push_back(std::move(block));
    if (blocks_.size() > max_held_) {
      // Full: the block farthest in file order is the one needed last; the
      // verifier reads that one back instead.
      auto far =
          std::max_element(blocks_.begin(), blocks_.end(), [](const Block& a, const Block& b) {
            return Before(a.file_id, a.offset, b.file_id, b.offset);
          });
      dropped = std::move(far->buffer);
      blocks_.erase(far);
    }
    cv_.notify_all();
    // The block is handed over first, so a waiting receiver holds no buffer and
    // the verifier never waits for one that waits here. Hashed bytes include
    // what resume kept, which was never offered: then it is not behind at all.
    while (!stopped_ && busy_ && offered_ > hashed_ + max_ahead_) cv_.wait(lock.native());
  }
}

void VerifyFeed::Withdraw(std::uint32_t file_id, std::uint64_t offset) {
  {
    MutexLock lock(mutex_);
    Unannounce(file_id, offset);
  }
  cv_.notify_all();
}

std::optional<VerifyFeed::Block> VerifyFeed::Take(std::uint32_t file_id, std::uint64_t offset) {
  std::optional<Block> found;
  std::deque<Block> stale;  // released outside the lock
  {
    MutexLock lock(mutex_);
    if (!stopped_ && Pending(file_id, offset)) {
      while (!stopped_ && Pending(file_id, offset)) cv_.wait(lock.native());
    }
    for (auto it = blocks_.begin(); it != blocks_.end();) {
      if (it->file_id == file_id && it->offset == offset && !found) {
        found = std::move(*it);
        it = blocks_.erase(it);
      } else if (Before(it->file_id, it->offset, file_id, offset)) {
        stale.push_back(std::move(*it));
        it = blocks_.erase(it);
      } else {
        ++it;
      }
    }
  }
  return found;
}

void VerifyFeed::Hashed(std::uint64_t n) {
  {
    MutexLock lock(mutex_);
    hashed_ += n;
  }
  cv_.notify_all();
}

void VerifyFeed::SetBusy(bool busy) {
  {
    MutexLock lock(mutex_);
    busy_ = busy;
  }
  if (!busy) cv_.notify_all();
}

void VerifyFeed::Stop() {
  std::deque<Block> dropped;
  {
    MutexLock lock(mutex_);
    stopped_ = true;
    dropped.swap(blocks_);
  }
  cv_.notify_all();
}

std::size_t VerifyFeed::held() const {
  MutexLock lock(mutex_);
  return blocks_.size();
}

}  // namespace braid
