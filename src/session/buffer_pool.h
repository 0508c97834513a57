#pragma once
/// A bounded set of page-aligned block buffers. Memory use of a transfer is
/// capacity x buffer size per process (docs/architecture.md has the sums).
/// Each buffer is a mapping of its own, so one let go of is memory given
/// back: a lowered limit (-s auto after a probe) keeps only what it allows,
/// and buffers no window of kTrimWindow acquires needed are let go of too
/// (a sink cannot know how many streams the source keeps busy).

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
  /// Buffers beyond the limit are unmapped as they come back.
  void SetLimit(std::size_t limit);
  /// How many buffers are mapped, out or free.
  std::size_t allocated() const;
  /// Acquires after which free buffers beyond the most that were out at once
  /// during them are unmapped.
  static constexpr std::size_t kTrimWindow = 256;

  std::size_t buffer_size() const { return buffer_size_; }
  std::size_t count() const { return count_; }

 private:
  void Release(PooledBuffer* buffer);
  /// Unmaps a buffer that is neither out nor in `free_`, and forgets it.
  void Drop(PooledBuffer* buffer) BRAID_REQUIRES(mutex_);
  std::size_t MappedBytes() const;
  /// Counts an acquire; at the end of a window, unmaps what it did not need.
  void TrimAfterWindow() BRAID_REQUIRES(mutex_);
  /// Unmaps free buffers until at most `keep` are mapped.
  void DropFreeBeyond(std::size_t keep) BRAID_REQUIRES(mutex_);

  const std::size_t buffer_size_;  ///< set by the constructor, never changed
  const std::size_t count_;
  mutable Mutex mutex_;
  std::condition_variable cv_;  ///< signals a buffer back, a new limit, or Close
  std::size_t limit_ BRAID_GUARDED_BY(mutex_);
  std::vector<std::unique_ptr<PooledBuffer>> all_ BRAID_GUARDED_BY(mutex_);
  std::vector<PooledBuffer*> free_ BRAID_GUARDED_BY(mutex_);
  bool closed_ BRAID_GUARDED_BY(mutex_) = false;
  std::size_t window_acquires_ BRAID_GUARDED_BY(mutex_) = 0;
  std::size_t window_peak_out_ BRAID_GUARDED_BY(mutex_) = 0;  ///< most out at once this window
};

}  // namespace braid
