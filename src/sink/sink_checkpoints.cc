#include "sink/sink_checkpoints.h"

#include <chrono>

namespace braid {
namespace {

/// How often written blocks are synced and journaled. At high rates the byte
/// bound comes first.
constexpr auto kCheckpointInterval = std::chrono::milliseconds(250);
constexpr std::uint64_t kCheckpointBytes = 64u << 20;

}  // namespace

SinkCheckpoints::SinkCheckpoints(SinkFiles& files, const std::string& host, FsyncPolicy fsync,
                                 bool keep_partial)
    : files_(files),
      fsync_(fsync),
      keep_partial_(keep_partial),
      journals_(host),
      io_(files, journals_),
      // Under -y none nothing is journaled while the copy runs (docs/resume.md).
      checkpointer_(io_, /*record_unsynced=*/fsync != FsyncPolicy::kNone) {}

void SinkCheckpoints::Written(std::uint32_t id, const JournalRecord& record) {
  if (checkpointer_.Written(id, record) >= kCheckpointBytes) cv_.notify_one();
}

void SinkCheckpoints::Loop(const TransferState& state) {
  // -y none: no sync while the copy runs, so no checkpoint either (a journal
  // record needs its block synced). Only a failure journals, after its sync
  // (KeepPartials); a crash of the sink leaves no journal, and the re-run
  // copies those files from the start.
  if (fsync_ == FsyncPolicy::kNone) return;
  MutexLock lock(mutex_);
  while (!stopped_ && !state.failed()) {
    cv_.wait_for(lock.native(), kCheckpointInterval);
    lock.Unlock();
    checkpointer_.Run();
    lock.Lock();
  }
}

void SinkCheckpoints::Stop() {
  {
    MutexLock lock(mutex_);
    stopped_ = true;
  }
  cv_.notify_all();
}

Kept SinkCheckpoints::KeepPartials() {
  if (files_.plan().mode == TargetPlan::Mode::kStream) return Kept{};
  if (keep_partial_) {
    // What reached the disk since the last checkpoint counts too. A failing
    // disk may refuse this; the journal then keeps what it had.
    try {
      checkpointer_.Run();
    } catch (const BraidError&) {
    }
  }
  Kept kept;
  files_.RemovePartials([&](std::uint32_t id) {
    bool keep =
        keep_partial_ && checkpointer_.has_journal(id) && checkpointer_.journaled_bytes(id) > 0;
    if (keep) {
      kept.bytes += checkpointer_.journaled_bytes(id);
      ++kept.partial_files;
    } else {
      journals_.Remove(id);
    }
    return keep;
  });
  return kept;
}

}  // namespace braid
