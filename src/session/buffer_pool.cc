#include "session/buffer_pool.h"

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
  for (auto& b : all_) std::free(b->data_);
}

BufferRef BufferPool::Acquire() {
  MutexLock lock(mutex_);
  for (;;) {
    if (closed_) return nullptr;
    const std::size_t out = all_.size() - free_.size();
    if (out < limit_) {
      if (!free_.empty()) break;
      if (all_.size() < count_) {
        std::size_t page = PageSize();
        std::size_t bytes = (buffer_size_ + page - 1) / page * page;
        void* mem = std::aligned_alloc(page, bytes);
        if (mem == nullptr) throw std::bad_alloc();
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
  return BufferRef(b, [this](PooledBuffer* p) { Release(p); });
}

void BufferPool::Release(PooledBuffer* buffer) {
  {
    MutexLock lock(mutex_);
    free_.push_back(buffer);
  }
  cv_.notify_one();
}

void BufferPool::SetLimit(std::size_t limit) {
  {
    MutexLock lock(mutex_);
    limit_ = std::min(count_, std::max<std::size_t>(limit, 1));
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
