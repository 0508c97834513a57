#pragma once
/// What one copy of a copy to many destinations tells the agent thread that
/// runs them all (agent/star_copy): its counts as they move, and how it
/// ended. The copy's own thread writes (CopyAttempt, through every retry);
/// the star's thread reads a snapshot every tick. Without a watch (a copy to
/// one DST) a CopyAttempt reports to the user itself, as it always has.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "braid/error.h"
#include "braid/mutex.h"

namespace braid {

class CopyWatch {
 public:
  struct State {
    std::uint64_t moved = 0;             ///< bytes that arrived at the sink, over every attempt
    std::uint64_t have = 0;              ///< of the total: kept by earlier runs plus this attempt's
    std::uint64_t skipped = 0;           ///< the latest attempt's: not sent, already there
    std::optional<std::uint64_t> total;  ///< the source's bytes; unknown for a pipe
    double data_seconds = 0;             ///< the data phases of the attempts that ended
    int retries = 0;
    int attempts = 0;    ///< begun so far
    bool ready = false;  ///< the latest attempt's sink answered (a feed it serves is up)
    bool finished = false;
    int exit_code = 0;                      ///< once finished
    ErrorCode error_code = ErrorCode::kOk;  ///< once finished
    std::string error;                      ///< once finished, if it failed
  };

  /// The next attempt begins: what the last one moved stays counted.
  void BeginAttempt();
  /// The sink said what it has (its resume answer), of `total`.
  void OnPlan(std::optional<std::uint64_t> total, std::uint64_t skipped);
  /// The sink's byte count in this attempt.
  void OnBytes(std::uint64_t bytes);
  /// An attempt's data phase ended after `seconds` (a retry follows or not).
  void OnAttemptEnd(double seconds);
  /// The last word: 0, or the failure that ended it.
  void Finish(int exit_code, ErrorCode code, std::string error);

  State Snapshot() const;

  /// A chain or tree: `attached` says whether every copy that follows this
  /// one's sink has taken what it needs from its feed (its list, and then
  /// the feed's Done). Set before the copy's thread starts.
  void HoldFeedFor(std::function<bool()> attached) { attached_ = std::move(attached); }
  /// Before the copy lets its sink go: waits (in short slices, at most
  /// kHoldFeed, not past an interrupt) until `attached` holds, so a hop that
  /// starts as this copy ends still reads from it, not from the sources.
  void AwaitFollowers() const;
  /// Lines that are the same for every destination (the -E digest lines) are
  /// printed by one copy only: the first to ask gets true. Shared by the
  /// watches of one star.
  void ShareDigestLines(std::atomic<bool>* taken) { digest_lines_taken_ = taken; }
  bool ClaimDigestLines() const {
    return digest_lines_taken_ == nullptr || !digest_lines_taken_->exchange(true);
  }

 private:
  mutable Mutex mu_;
  State state_ BRAID_GUARDED_BY(mu_);
  std::uint64_t attempt_bytes_ BRAID_GUARDED_BY(mu_) = 0;
  std::uint64_t earlier_bytes_ BRAID_GUARDED_BY(mu_) = 0;  ///< moved by attempts that ended
  bool started_ BRAID_GUARDED_BY(mu_) = false;
  std::atomic<bool>* digest_lines_taken_ = nullptr;  ///< set before the copy's thread starts
  std::function<bool()> attached_;                   ///< as digest_lines_taken_
};

}  // namespace braid
