#pragma once
/// Block writes in flight behind a stream's receiver. With one thread both
/// receiving and writing, the stream reads nothing while the disk takes a
/// block, and the disk sees one write at a time from it: around the page
/// cache a write waits for the device, and this VM's disk writes 1 MiB blocks
/// at 0.74x the rate at queue depth 1 that it reaches at depth 4 (fio). Here
/// up to `depth` writes run on threads of their own while the receiver reads
/// on; the buffer pool still bounds memory. The receiver drains the writes
/// before any frame that counts on them (a file end, a pass end).

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "braid/mutex.h"
#include "session/transfer_state.h"

namespace braid {

class WriteBehind {
 public:
  /// A write that fails fails `state` at once (waking the other threads) and
  /// is rethrown to the receiver by its next Submit or Drain.
  WriteBehind(TransferState& state, std::size_t depth);
  /// Runs what was handed over, then stops the threads.
  ~WriteBehind();
  WriteBehind(const WriteBehind&) = delete;
  WriteBehind& operator=(const WriteBehind&) = delete;

  /// How many writes a stream keeps in flight when `streams` share the disk:
  /// enough for the disk's queue together, one each at 4 streams or more.
  static std::size_t DepthFor(std::size_t streams);

  /// Waits while `depth` writes are in flight (rethrowing what one threw),
  /// then hands `write` to a writer thread and returns.
  void Submit(std::function<void()> write) BRAID_EXCLUDES(mutex_);
  /// Returns once no write is in flight; rethrows what one threw.
  void Drain() BRAID_EXCLUDES(mutex_);

 private:
  void Loop() BRAID_EXCLUDES(mutex_);
  /// Runs one write outside the lock; what it threw, or null.
  std::exception_ptr Run(const std::function<void()>& write);

  TransferState& state_;
  const std::size_t depth_;
  Mutex mutex_;
  std::condition_variable cv_;  ///< signals a write handed over, finished, or a stop
  std::deque<std::function<void()>> queue_ BRAID_GUARDED_BY(mutex_);
  /// Writes handed over and not yet finished (queued or running), at most depth_.
  std::size_t in_flight_ BRAID_GUARDED_BY(mutex_) = 0;
  bool stopping_ BRAID_GUARDED_BY(mutex_) = false;
  std::exception_ptr error_ BRAID_GUARDED_BY(mutex_);
  /// Started as writes need them, never more than depth_, so a stream that
  /// never writes costs no thread. Touched only by the receiver's thread.
  std::vector<std::thread> threads_;
};

}  // namespace braid
