#pragma once
/// A bounded set of page-aligned block buffers. Memory use of a transfer is
/// capacity x buffer size per process (docs/architecture.md has the sums).

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "braid/mutex.h"

namespace braid {

class BufferPool;

/// One buffer, returned to its pool when the last reference goes.
class PooledBuffer {
 public:
  std::uint8_t* data() { return data_; }
  const std::uint8_t* data() const { return data_; }
  std::size_t capacity() const { return capacity_; }

 private:
  friend class BufferPool;
  PooledBuffer(std::uint8_t* data, std::size_t capacity) : data_(data), capacity_(capacity) {}
  std::uint8_t* data_;
  std::size_t capacity_;
};

using BufferRef = std::shared_ptr<PooledBuffer>;

class BufferPool {
 public:
  /// Buffers are allocated on first use, up to `count`.
  BufferPool(std::size_t buffer_size, std::size_t count);
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  /// Blocks until a buffer is free; nullptr once Close() was called.
  BufferRef Acquire();
  /// Wakes every waiter; later Acquire calls return nullptr.
  void Close();
  /// At most `limit` buffers (1..count) are out at once from now on, so that a transfer
  /// that uses fewer streams than it connected (-s auto) reads ahead only for those.
  /// Buffers already out stay out; Acquire waits until enough come back.
  void SetLimit(std::size_t limit);

  std::size_t buffer_size() const { return buffer_size_; }
  std::size_t count() const { return count_; }

 private:
  void Release(PooledBuffer* buffer);

  const std::size_t buffer_size_;  ///< set by the constructor, never changed
  const std::size_t count_;
  Mutex mutex_;
  std::condition_variable cv_;  ///< signals a buffer back, a new limit, or Close
  std::size_t limit_ BRAID_GUARDED_BY(mutex_);
  std::vector<std::unique_ptr<PooledBuffer>> all_ BRAID_GUARDED_BY(mutex_);
  std::vector<PooledBuffer*> free_ BRAID_GUARDED_BY(mutex_);
  bool closed_ BRAID_GUARDED_BY(mutex_) = false;
};

}  // namespace braid
