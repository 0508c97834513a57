#pragma once
/// Blocks handed from the sink's receivers to its verifier (-E). The verifier
/// hashes each file in order; a block that was just written is usually the
/// next one it needs, so it hashes it from the receiver's buffer instead of
/// reading it back from the page cache (a copy of every byte on the thread
/// that bounds the copy's speed). Anything not in the feed (kept by resume,
/// dropped for want of room, written out of order) it reads from the file.
///
/// The feed also keeps receivers from running far ahead of a busy verifier:
/// a verifier that falls behind would hash the whole tail alone after the
/// last block, with the other core idle. Receivers wait only while the
/// verifier has written bytes to hash, never while it waits for data, so a
/// block lost with a stream cannot leave both sides waiting for each other.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "braid/mutex.h"
#include "session/buffer_pool.h"

namespace braid {

class VerifyFeed {
 public:
  struct Block {
    std::uint32_t file_id = 0;
    std::uint64_t offset = 0;
    std::uint32_t length = 0;
    BufferRef buffer;
  };

  /// Holds at most `max_held` buffers (they come out of the receivers' pool,
  /// so this must leave them enough); receivers wait while more than
  /// `max_ahead` bytes were offered than hashed.
  VerifyFeed(std::size_t max_held, std::uint64_t max_ahead)
      : max_held_(max_held), max_ahead_(max_ahead) {}

  /// Receiver, before it writes a block: the verifier, which may see the
  /// block's bytes in the file before Offer, waits for it rather than read it back.
  void Announce(std::uint32_t file_id, std::uint64_t offset);
  /// Receiver, after an announced block is written: keeps it if there is
  /// room, then waits while the verifier is busy and too far behind.
  void Offer(Block block);
  /// Receiver: an announced block will not come (it was there already).
  void Withdraw(std::uint32_t file_id, std::uint64_t offset);
  /// Verifier: the offered block that starts exactly at (file_id, offset), if
  /// any, waiting for it while it is announced; blocks before it in file
  /// order are dropped (it has hashed them).
  std::optional<Block> Take(std::uint32_t file_id, std::uint64_t offset);
  /// Verifier: `n` more bytes hashed.
  void Hashed(std::uint64_t n);
  /// Verifier: about to wait for data (false) or has data to hash (true).
  void SetBusy(bool busy);
  /// No more waiting or holding: the verifier is done, or the transfer failed.
  void Stop();

  std::size_t held() const;

 private:
  const std::size_t max_held_;
  const std::uint64_t max_ahead_;
  mutable Mutex mutex_;
  /// Signals a block offered or withdrawn, bytes hashed, the verifier idle, or Stop.
  std::condition_variable cv_;
  bool Pending(std::uint32_t file_id, std::uint64_t offset) const BRAID_REQUIRES(mutex_);
  void Unannounce(std::uint32_t file_id, std::uint64_t offset) BRAID_REQUIRES(mutex_);

  std::deque<Block> blocks_ BRAID_GUARDED_BY(mutex_);
  /// Announced, not yet offered: (file id, offset), one per busy receiver.
  std::vector<std::pair<std::uint32_t, std::uint64_t>> pending_ BRAID_GUARDED_BY(mutex_);
  std::uint64_t offered_ BRAID_GUARDED_BY(mutex_) = 0;  ///< bytes
  std::uint64_t hashed_ BRAID_GUARDED_BY(mutex_) = 0;   ///< bytes
  bool busy_ BRAID_GUARDED_BY(mutex_) = false;
  bool stopped_ BRAID_GUARDED_BY(mutex_) = false;
};

}  // namespace braid
