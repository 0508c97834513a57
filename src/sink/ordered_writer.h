#pragma once
/// Puts blocks that arrive in any order back in order for a target that
/// cannot seek (stdout, a pipe, a device). Memory stays bounded: a block more
/// than `window` bytes ahead of the write position waits before it is read.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

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
  std::uint64_t window_;
  WriteFn write_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::map<std::uint64_t, Held> pending_;
  std::uint64_t position_ = 0;
  bool aborted_ = false;
};

}  // namespace braid
