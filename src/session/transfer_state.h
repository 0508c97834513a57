#pragma once
/// What the threads of one side of a transfer share: the first error, the
/// abort switch and the byte and file counters. The first failure wins; later
/// ones (often just echoes of it, like a reset stream after a disk-full) are
/// dropped.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "braid/error.h"
#include "braid/file_entry.h"
#include "braid/mutex.h"

namespace braid {

class TransferState {
 public:
  /// Records the error if it is the first, then runs every abort hook once.
  void Fail(const BraidError& error);
  /// Ends the transfer without an error of its own (the agent said so).
  void Abort(const std::string& why);
  bool failed() const { return failed_.load(); }
  /// True if the transfer fails within `timeout`: a stream that dies because
  /// the whole transfer is failing should not be reported as a lost stream.
  bool FailsWithin(std::chrono::milliseconds timeout) const;
  std::optional<BraidError> error() const;

  /// Called once on failure or abort: close queues, shut sockets down.
  void OnAbort(std::function<void()> hook);

  /// Wraps a thread body so that whatever it throws fails the transfer
  /// (waking every other thread) instead of ending the process.
  std::function<void()> Guarded(std::function<void()> body);

  // The counters are atomic: any thread adds to them and reads them without a lock.
  std::atomic<std::uint64_t> bytes{0};       ///< file bytes moved
  std::atomic<std::uint64_t> wire_bytes{0};  ///< payload bytes on the streams (after -c)
  /// File bytes a compared target already held ("same" frames): done, not moved.
  std::atomic<std::uint64_t> same_bytes{0};
  /// Files this end finished: a sink's renamed into place, a source's whose
  /// file end it sent (once each, however often the sink asks again).
  std::atomic<std::uint64_t> files_done{0};
  std::atomic<std::uint16_t> streams{0};
  /// The sink: the id of the file a receiver wrote a block of last, for the
  /// agent's bar (kNoneArriving before the first); SinkSession::ArrivingPath
  /// names it. Stored with release, so its reader may then look at the list.
  static constexpr std::uint32_t kNoneArriving = UINT32_MAX;
  std::atomic<std::uint32_t> arriving{kNoneArriving};

 private:
  void RunHooks() BRAID_EXCLUDES(mutex_);

  mutable Mutex mutex_;
  mutable std::condition_variable failed_cv_;  ///< signals failed_
  /// Atomic, so failed() costs the hot loops no lock; set under mutex_ so
  /// FailsWithin cannot miss the wake-up.
  std::atomic<bool> failed_{false};
  std::optional<BraidError> error_ BRAID_GUARDED_BY(mutex_);
  std::vector<std::function<void()>> hooks_ BRAID_GUARDED_BY(mutex_);
  bool hooks_ran_ BRAID_GUARDED_BY(mutex_) = false;
};

}  // namespace braid
