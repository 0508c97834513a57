#pragma once
/// The sink's crash safety while a copy runs: each written block is journaled
/// at once as unsynced (what a killed sink keeps), and written blocks are
/// synced and journaled again every 250 ms, or sooner after 64 MiB (what a
/// crash of the host can cost a re-run; docs/resume.md has the measured
/// price), on a thread of its own. After a failure it says what a re-run keeps.

#include <condition_variable>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "braid/fsync_policy.h"
#include "braid/mutex.h"
#include "proto/control_message.h"
#include "resume/checkpointer.h"
#include "resume/journal_files.h"
#include "session/transfer_state.h"
#include "sink/sink_files.h"

namespace braid {

class SinkCheckpoints {
 public:
  SinkCheckpoints(SinkFiles& files, const std::string& host, FsyncPolicy fsync, bool keep_partial);
  SinkCheckpoints(const SinkCheckpoints&) = delete;
  SinkCheckpoints& operator=(const SinkCheckpoints&) = delete;

  /// For PrepareResume and the committer. Both are safe from any thread.
  JournalFiles& journals() { return journals_; }
  Checkpointer& checkpointer() { return checkpointer_; }
  /// Receiver: a block of a named file was written (not yet synced).
  void Written(std::uint32_t id, const JournalRecord& record);
  /// The checkpoint thread: checkpoints until Stop() or the transfer fails.
  void Loop(const TransferState& state);
  void Stop();
  /// After a failure, with every other thread joined: journals what is on
  /// disk, keeps the partial files a re-run can resume (with -k) and removes
  /// the rest. A stream target (stdout, a FIFO, /dev/null) keeps nothing, and
  /// says so with an empty Kept: silence would leave the agent guessing that
  /// a journal survived.
  Kept KeepPartials();

 private:
  /// The checkpointer's file-system steps on the real partial files and journals.
  class Io : public CheckpointIo {
   public:
    Io(SinkFiles& files, JournalFiles& journals) : files_(files), journals_(journals) {}
    void SyncData(std::uint32_t file) override { files_.SyncPartial(file); }
    void AppendJournal(std::uint32_t file, bool create,
                       std::span<const std::uint8_t> bytes) override {
      journals_.Append(file, create, bytes);
    }

   private:
    SinkFiles& files_;
    JournalFiles& journals_;
  };

  SinkFiles& files_;
  const FsyncPolicy fsync_;
  const bool keep_partial_;
  JournalFiles journals_;
  Io io_;
  Checkpointer checkpointer_;  ///< locks itself
  Mutex mutex_;
  std::condition_variable cv_;  ///< wakes the loop early: 64 MiB unsynced, or Stop
  bool stopped_ BRAID_GUARDED_BY(mutex_) = false;
};

}  // namespace braid
