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
  if (it != files_.end()) {
    it->second.pending.push_back(record);
    pending_bytes_ += record.length;
  }
  return pending_bytes_;
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
  std::vector<std::pair<std::uint32_t, Tracked>> batch;
  {
    MutexLock lock(mutex_);
    for (auto& [id, t] : files_) {
      if (t.pending.empty()) continue;
      batch.emplace_back(id, Tracked{t.header, t.journal_exists, std::move(t.pending), {}});
      t.pending.clear();
    }
    pending_bytes_ = 0;
  }
  std::size_t journaled = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    auto& [id, t] = batch[i];
    try {
      io_.SyncData(id);
      std::vector<std::uint8_t> bytes;
      if (!t.journal_exists) bytes = EncodeJournalHeader(t.header);
      std::vector<std::uint8_t> records = EncodeJournalRecords(t.header, t.pending);
      bytes.insert(bytes.end(), records.begin(), records.end());
      io_.AppendJournal(id, !t.journal_exists, bytes);
    } catch (...) {
      // Put back what was not journaled, so a later run (the final one after a
      // failure) can still try.
      MutexLock lock(mutex_);
      for (std::size_t j = i; j < batch.size(); ++j) {
        auto it = files_.find(batch[j].first);
        if (it == files_.end()) continue;
        auto& pending = it->second.pending;
        pending.insert(pending.begin(), batch[j].second.pending.begin(),
                       batch[j].second.pending.end());
        for (const JournalRecord& r : batch[j].second.pending) pending_bytes_ += r.length;
      }
      throw;
    }
    journaled += t.pending.size();
    MutexLock lock(mutex_);
    auto it = files_.find(id);
    if (it == files_.end()) continue;
    it->second.journal_exists = true;
    for (const JournalRecord& r : t.pending)
      it->second.journaled.Add(r.offset, r.offset + r.length);
  }
  return journaled;
}

}  // namespace braid
