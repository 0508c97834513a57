#include "session/buffer_pool.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <new>

namespace braid {

namespace {
std::size_t PageSize() {
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<std::size_t>(page) : 4096;
}
}  // namespace

BufferPool::BufferPool(std::size_t buffer_size, std::size_t count)
    : buffer_size_(buffer_size), count_(count), limit_(count) {
  all_.reserve(count);
  free_.reserve(count);
}

BufferPool::~BufferPool() {
  for (auto& b : all_) ::munmap(b->data_, MappedBytes());
}

std::size_t BufferPool::MappedBytes() const {
  const std::size_t page = PageSize();
  return (buffer_size_ + page - 1) / page * page;
}

std::size_t BufferPool::allocated() const {
  MutexLock lock(mutex_);
  return all_.size();
}

void BufferPool::Drop(PooledBuffer* buffer) {
  ::munmap(buffer->data_, MappedBytes());
  auto it =
      std::find_if(all_.begin(), all_.end(), [buffer](const auto& b) { return b.get() == buffer; });
  all_.erase(it);
}

BufferRef BufferPool::Acquire() {
  MutexLock lock(mutex_);
  for (;;) {
    if (closed_) return nullptr;
    const std::size_t out = all_.size() - free_.size();
    if (out < limit_) {
      if (!free_.empty()) break;
      if (all_.size() < count_) {
        void* mem = ::mmap(nullptr, MappedBytes(), PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mem == MAP_FAILED) throw std::bad_alloc();
        all_.push_back(std::unique_ptr<PooledBuffer>(
            new PooledBuffer(static_cast<std::uint8_t*>(mem), buffer_size_)));
        free_.push_back(all_.back().get());
        break;
      }
    }
    cv_.wait(lock.native());
  }
  PooledBuffer* b = free_.back();
  free_.pop_back();
  TrimAfterWindow();
  return BufferRef(b, [this](PooledBuffer* p) { Release(p); });
}

void BufferPool::TrimAfterWindow() {
  const std::size_t out = all_.size() - free_.size();
  window_peak_out_ = std::max(window_peak_out_, out);
  if (++window_acquires_ < kTrimWindow) return;
  DropFreeBeyond(window_peak_out_);
  window_acquires_ = 0;
  window_peak_out_ = out;
}

void BufferPool::DropFreeBeyond(std::size_t keep) {
  while (all_.size() > keep && !free_.empty()) {
    PooledBuffer* spare = free_.front();  // the least recently used: reuse takes the back
    free_.erase(free_.begin());
    Drop(spare);
  }
}

void BufferPool::Release(PooledBuffer* buffer) {
  {
    MutexLock lock(mutex_);
    if (all_.size() > limit_) {
      Drop(buffer);
      return;  // still at or past the limit with it gone: nobody waiting can take one
    }
    free_.push_back(buffer);
  }
  cv_.notify_one();
}

void BufferPool::SetLimit(std::size_t limit) {
  {
    MutexLock lock(mutex_);
    limit_ = std::min(count_, std::max<std::size_t>(limit, 1));
    DropFreeBeyond(limit_);
  }
  cv_.notify_all();
}

void BufferPool::Close() {
  {
    MutexLock lock(mutex_);
    closed_ = true;
  }
  cv_.notify_all();
}

}  // namespace braid
