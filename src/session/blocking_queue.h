#pragma once
/// A FIFO handed between threads. Closing it lets consumers drain what is
/// left and then see the end; Abort drops everything at once.

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>

namespace braid {

template <typename T>
class BlockingQueue {
 public:
  /// Returns false when the queue was closed or aborted (the item is dropped).
  bool Push(T item) {
    {
      std::lock_guard lock(mutex_);
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
      std::lock_guard lock(mutex_);
      if (aborted_) return false;
      items_.push_front(std::move(item));
    }
    cv_.notify_one();
    return true;
  }
  /// Blocks for the next item; nullopt when closed and drained, or aborted.
  std::optional<T> Pop() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [this] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }
  template <typename Duration>
  std::optional<T> PopFor(Duration timeout) {
    std::unique_lock lock(mutex_);
    cv_.wait_for(lock, timeout, [this] { return !items_.empty() || closed_; });
    if (items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    return item;
  }
  void Close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  void Abort() {
    std::deque<T> dropped;
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      aborted_ = true;
      dropped.swap(items_);
    }
    cv_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<T> items_;
  bool closed_ = false;
  bool aborted_ = false;
};

}  // namespace braid
