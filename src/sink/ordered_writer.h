#pragma once
/// Puts blocks that arrive in any order back in order for a target that
/// cannot seek (stdout, a pipe, a device). Memory stays bounded: a block more
/// than `window` bytes ahead of the write position waits before it is read.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>

#include "braid/mutex.h"

#include "session/buffer_pool.h"

namespace braid {

class OrderedWriter {
 public:
  /// `write` gets the bytes in order, with their offset, and must write them all (or throw).
  using WriteFn = std::function<void(std::uint64_t, const std::uint8_t*, std::uint32_t)>;
  OrderedWriter(std::uint64_t window, WriteFn write);

  /// Blocks until a block at `offset` fits in the window; false after Abort().
  /// The block that is next in line always fits, so this cannot deadlock.
  bool WaitForRoom(std::uint64_t offset);
  /// Takes the block and writes it plus every block now contiguous with it.
  /// A block before the write position (a duplicate) is dropped.
  void Submit(std::uint64_t offset, BufferRef buffer, std::uint32_t length);
  void Abort();

  std::uint64_t position() const;
  std::size_t held() const;

 private:
  struct Held {
    BufferRef buffer;
    std::uint32_t length;
  };
  const std::uint64_t window_;
  /// Set by the constructor; called only with mutex_ held, so writes stay in order.
  const WriteFn write_;
  mutable Mutex mutex_;
  std::condition_variable cv_;  ///< signals the write position moved, or Abort
  std::map<std::uint64_t, Held> pending_ BRAID_GUARDED_BY(mutex_);
  std::uint64_t position_ BRAID_GUARDED_BY(mutex_) = 0;
  bool aborted_ BRAID_GUARDED_BY(mutex_) = false;
};

}  // namespace braid
