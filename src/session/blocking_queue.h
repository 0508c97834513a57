#pragma once
/// A FIFO handed between threads. Closing it lets consumers drain what is
/// left and then see the end; Abort drops everything at once.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <optional>

#include "braid/mutex.h"

namespace braid {

template <typename T>
class BlockingQueue {
 public:
  /// Returns false when the queue was closed or aborted (the item is dropped).
  bool Push(T item) {
    {
      MutexLock lock(mutex_);
      if (closed_) return false;
      items_.push_back(std::move(item));
    }
    cv_.notify_one();
    return true;
  }
  /// As Push, but first waits while `max` items are queued: for a producer
  /// that no buffer pool holds back (the file ends of a tree of empty files),
  /// so the queue cannot grow with the size of the list.
  bool PushBounded(T item, std::size_t max) {
    {
      MutexLock lock(mutex_);
      while (items_.size() >= max && !closed_) space_cv_.wait(lock.native());
      if (closed_) return false;
      items_.push_back(std::move(item));
    }
    cv_.notify_one();
    return true;
  }
  /// Puts an item back at the head, for one a consumer could not deliver. Allowed after
  /// Close (the item was queued before it, and the consumers that are still popping will
  /// take it), not after Abort: false then, and the item is dropped.
  bool PushFront(T item) {
    {
      MutexLock lock(mutex_);
      if (aborted_) return false;
      items_.push_front(std::move(item));
    }
    cv_.notify_one();
    return true;
  }
  /// Blocks for the next item; nullopt when closed and drained, or aborted.
  std::optional<T> Pop() {
    MutexLock lock(mutex_);
    while (items_.empty() && !closed_) cv_.wait(lock.native());
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    space_cv_.notify_one();
    return item;
  }
  template <typename Duration>
  std::optional<T> PopFor(Duration timeout) {
    MutexLock lock(mutex_);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (items_.empty() && !closed_) {
      if (cv_.wait_until(lock.native(), deadline) == std::cv_status::timeout) break;
    }
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    space_cv_.notify_one();
    return item;
  }
  void Close() {
    {
      MutexLock lock(mutex_);
      closed_ = true;
    }
    cv_.notify_all();
    space_cv_.notify_all();
  }
  void Abort() {
    std::deque<T> dropped;
    {
      MutexLock lock(mutex_);
      closed_ = true;
      aborted_ = true;
      dropped.swap(items_);
    }
    cv_.notify_all();
    space_cv_.notify_all();
  }

 private:
  Mutex mutex_;
  std::condition_variable cv_;        ///< signals a new item, Close or Abort
  std::condition_variable space_cv_;  ///< signals a taken item, Close or Abort (PushBounded)
  std::deque<T> items_ BRAID_GUARDED_BY(mutex_);
  bool closed_ BRAID_GUARDED_BY(mutex_) = false;
  bool aborted_ BRAID_GUARDED_BY(mutex_) = false;
};

}  // namespace braid
