#pragma once
/// Turns written blocks into journal records, in the one order that is safe:
/// a block's data is synced to disk before any synced record of it is
/// appended. Optionally, each block also gets an unsynced record as soon as it
/// is written, so a sink that is killed (its host still up) loses only what
/// it had not written yet, not the last checkpoint interval and the sync that
/// was in progress. The file system is behind an interface, so tests can crash
/// it between any two steps. No IO of its own.

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "braid/mutex.h"
#include "resume/resume_journal.h"
#include "session/range_set.h"

namespace braid {

/// The file-system steps of a checkpoint, one partial file (by id) at a time.
class CheckpointIo {
 public:
  virtual ~CheckpointIo() = default;
  /// Makes every byte written so far to the partial file durable (fdatasync).
  virtual void SyncData(std::uint32_t file) = 0;
  /// Appends to the file's journal, creating it (the bytes then start with the
  /// header) when `create`. An append that fails must leave nothing behind, so
  /// the next one follows the last good record.
  virtual void AppendJournal(std::uint32_t file, bool create,
                             std::span<const std::uint8_t> bytes) = 0;
};

class Checkpointer {
 public:
  /// `record_unsynced`: append an unsynced record at each Written.
  explicit Checkpointer(CheckpointIo& io, bool record_unsynced = false)
      : io_(io), record_unsynced_(record_unsynced) {}
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  /// Journals this file from now on. `journal_exists`: a journal with this
  /// header is already on disk (a resumed file) and vouches for `kept`, so
  /// records are appended to it.
  void Track(std::uint32_t file, const JournalHeader& header, bool journal_exists, RangeSet kept);
  /// A block was written (not yet synced). Ignored for untracked files.
  /// Returns the bytes now waiting for a checkpoint, over all files. An
  /// unsynced record that cannot be appended is dropped, never thrown: it is
  /// only a shortcut for a re-run, and the checkpoint's record still follows.
  std::uint64_t Written(std::uint32_t file, const JournalRecord& record);
  /// Stops journaling a file (it was committed, or is being discarded).
  void Forget(std::uint32_t file);
  /// Syncs every file with blocks written since the last run, then journals
  /// those blocks. Returns how many blocks it journaled. Throws what the
  /// CheckpointIo throws; blocks not journaled stay pending.
  std::size_t Run();
  /// Blocks written but not yet journaled.
  std::size_t pending() const;
  /// Bytes the file's journal vouches for (0 when it has none): what a re-run keeps.
  std::uint64_t journaled_bytes(std::uint32_t file) const;
  bool has_journal(std::uint32_t file) const;

 private:
  struct Tracked {
    JournalHeader header;
    bool journal_exists = false;
    std::vector<JournalRecord> pending;
    RangeSet journaled;  ///< synced records only; a block journaled twice counts once
  };
  /// Appends `records` to the file's journal, creating it first when it does
  /// not exist yet. Under mutex_, so that the creation happens once.
  void AppendLocked(std::uint32_t id, Tracked& t, std::span<const JournalRecord> records)
      BRAID_REQUIRES(mutex_);

  /// SyncData is called by Run only, under run_mutex_ and outside mutex_ (it
  /// is slow); AppendJournal always under mutex_ (it is one small write).
  CheckpointIo& io_;
  const bool record_unsynced_;
  /// The writers (Written), the checkpoint thread (Run) and the committing
  /// thread (Track, Forget) share these.
  mutable Mutex mutex_;
  std::map<std::uint32_t, Tracked> files_ BRAID_GUARDED_BY(mutex_);
  std::uint64_t pending_bytes_ BRAID_GUARDED_BY(mutex_) = 0;
  /// Only one Run at a time: a second one could journal blocks whose sync the
  /// first has not finished. Taken before mutex_, never after; guards no field.
  Mutex run_mutex_;
};

}  // namespace braid
