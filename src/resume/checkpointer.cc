#include "resume/checkpointer.h"

#include <utility>

namespace braid {

void Checkpointer::Track(std::uint32_t file, const JournalHeader& header, bool journal_exists,
                         RangeSet kept) {
  MutexLock lock(mutex_);
  files_[file] = Tracked{header, journal_exists, {}, journal_exists ? std::move(kept) : RangeSet()};
}

std::uint64_t Checkpointer::journaled_bytes(std::uint32_t file) const {
  MutexLock lock(mutex_);
  auto it = files_.find(file);
  return it == files_.end() ? 0 : it->second.journaled.covered();
}

bool Checkpointer::has_journal(std::uint32_t file) const {
  MutexLock lock(mutex_);
  auto it = files_.find(file);
  return it != files_.end() && it->second.journal_exists;
}

std::uint64_t Checkpointer::Written(std::uint32_t file, const JournalRecord& record) {
  MutexLock lock(mutex_);
  auto it = files_.find(file);
  if (it == files_.end()) return pending_bytes_;
  it->second.pending.push_back(record);
  pending_bytes_ += record.length;
  if (record_unsynced_) {
    JournalRecord unsynced = record;
    unsynced.synced = false;
    try {
      AppendLocked(file, it->second, std::span(&unsynced, 1));
    } catch (const std::exception&) {
      // Dropped: the checkpoint's synced record of this block still follows.
    }
  }
  return pending_bytes_;
}

void Checkpointer::AppendLocked(std::uint32_t id, Tracked& t,
                                std::span<const JournalRecord> records) {
  std::vector<std::uint8_t> bytes;
  if (!t.journal_exists) bytes = EncodeJournalHeader(t.header);
  std::vector<std::uint8_t> encoded = EncodeJournalRecords(t.header, records);
  bytes.insert(bytes.end(), encoded.begin(), encoded.end());
  io_.AppendJournal(id, !t.journal_exists, bytes);
  t.journal_exists = true;
}

void Checkpointer::Forget(std::uint32_t file) {
  // Waits for a run in progress, which may be appending to this file's journal.
  MutexLock run_lock(run_mutex_);
  MutexLock lock(mutex_);
  files_.erase(file);
}

std::size_t Checkpointer::pending() const {
  MutexLock lock(mutex_);
  std::size_t n = 0;
  for (const auto& [id, t] : files_) n += t.pending.size();
  return n;
}

std::size_t Checkpointer::Run() {
  MutexLock run_lock(run_mutex_);
  // Take the blocks first, then sync: every block taken was written before the
  // sync began, so the sync covers it. Blocks written meanwhile wait for the next run.
  std::vector<std::pair<std::uint32_t, std::vector<JournalRecord>>> batch;
  {
    MutexLock lock(mutex_);
    for (auto& [id, t] : files_) {
      if (t.pending.empty()) continue;
      batch.emplace_back(id, std::move(t.pending));
      t.pending.clear();
    }
    pending_bytes_ = 0;
  }
  std::size_t journaled = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto& [id, records] = batch[i];
    try {
      io_.SyncData(id);
      MutexLock lock(mutex_);
      auto it = files_.find(id);
      if (it == files_.end()) continue;
      AppendLocked(id, it->second, records);
      for (const JournalRecord& r : records) {
        it->second.journaled.Add(r.offset, r.offset + r.length);
      }
    } catch (...) {
      // Put back what was not journaled, so a later run (the final one after a
      // failure) can still try.
      MutexLock lock(mutex_);
      for (std::size_t j = i; j < batch.size(); ++j) {
        auto it = files_.find(batch[j].first);
        if (it == files_.end()) continue;
        auto& pending = it->second.pending;
        const std::vector<JournalRecord>& back = batch[j].second;
        pending.insert(pending.begin(), back.begin(), back.end());
        for (const JournalRecord& r : back) pending_bytes_ += r.length;
      }
      throw;
    }
    journaled += records.size();
  }
  return journaled;
}

}  // namespace braid
