#include "sink/commit_batcher.h"

#include <chrono>
#include <cstdlib>

namespace braid {
// Complete files waiting for the committer are bounded: beyond the budget the
// thread that completes one waits. Each holds its state in flight (SinkFiles) and
// its descriptor until it is committed, and a tree of small files completes faster
// than it commits: unbounded, a million empty files had 211 MiB waiting at the
// sink, and 10,000 files of 100 bytes ran out of a soft limit of 1024 descriptors.
CommitBatcher::CommitBatcher(SinkFiles& files, SinkCheckpoints& checkpoints, HashAlgorithm hash,
                             bool force, std::string host, const OpenFileBudget& budget)
    : files_(files),
      checkpoints_(checkpoints),
      hash_(hash),
      force_(force),
      host_(std::move(host)),
      most_waiting_(budget.commit_waiting),
      batch_(budget.commit_batch) {}

void CommitBatcher::Push(std::uint32_t id, std::optional<DigestValue> digest) {
  queue_.PushBounded(Complete{id, digest}, most_waiting_);
}

std::vector<CommitBatcher::Complete> CommitBatcher::NextBatch(Complete first) {
  std::vector<Complete> batch{std::move(first)};
  while (batch.size() < batch_) {
    std::optional<Complete> more = queue_.PopFor(std::chrono::seconds(0));
    if (!more) break;
    batch.push_back(std::move(*more));
  }
  return batch;
}

void CommitBatcher::Run(const std::function<void(const std::vector<FileDone>&)>& committed) {
  while (std::optional<Complete> first = queue_.Pop()) {
    std::vector<Complete> batch = NextBatch(std::move(*first));
    std::vector<std::uint32_t> ids;
    std::vector<FileDone> verdicts;
    for (const Complete& c : batch) {
      verdicts.push_back(Verdict(c));
      checkpoints_.checkpointer().Forget(c.id);
      ids.push_back(c.id);
    }
    files_.MakeDurable(ids);
    for (const FileDone& done : verdicts) {
      files_.Commit(done.id, force_);
      // The file is whole under its final name; its journal has nothing left to say.
      checkpoints_.journals().Remove(done.id);
    }
    // -y dd: the names are on disk before the agent hears the files are done.
    files_.SyncDirectories(ids);
    committed(verdicts);
  }
}

FileDone CommitBatcher::Verdict(const Complete& c) {
  FileDone done;
  done.id = c.id;
  done.size = files_.end_size(c.id).value_or(0);
  done.final_path = files_.final_path(c.id);
  done.unchanged = files_.Unchanged(c.id);
  if (hash_ == HashAlgorithm::kNone) return done;
  std::string name(HashDisplayName(hash_));
  std::string where = host_.empty() ? done.final_path : host_ + ":" + done.final_path;
  std::optional<DigestValue> source_digest = files_.source_digest(c.id);
  if (!source_digest) {
    throw BraidError(ErrorCode::kProtocol,
                     "protocol error: source sent no " + name + " for " + where);
  }
  if (!c.digest) std::abort();  // queued for commit before it was hashed: a bug
  done.hash = hash_;
  done.source_digest = *source_digest;
  done.sink_digest = *c.digest;
  if (done.source_digest != done.sink_digest) {
    throw BraidError(ErrorCode::kIntegrity, name + " mismatch for " + where + ": source " +
                                                ToHex(done.source_digest) + ", copy " +
                                                ToHex(done.sink_digest));
  }
  return done;
}

}  // namespace braid
