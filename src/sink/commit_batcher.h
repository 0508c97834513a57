#pragma once
/// The sink's committer: files that are complete (and verified, with -E) go
/// into place in batches. Everything complete at one moment is one batch, so a
/// tree of small files costs one file-system sync per batch rather than one
/// per file. Per batch: the digests are compared, the data made durable, each
/// file renamed into place and its journal removed, and (with -y dd) the
/// directories synced, before the batch is reported done.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "proto/control_message.h"
#include "security/crypto/file_digest.h"
#include "session/blocking_queue.h"
#include "sink/open_file_budget.h"
#include "sink/sink_checkpoints.h"
#include "sink/sink_files.h"

namespace braid {

class CommitBatcher {
 public:
  /// `hash`: the -E algorithm (kNone: no digests to compare); `force`: -f;
  /// `budget`: how many complete files may wait and go in one batch, each
  /// holding its descriptor (sink/open_file_budget).
  CommitBatcher(SinkFiles& files, SinkCheckpoints& checkpoints, HashAlgorithm hash, bool force,
                std::string host, const OpenFileBudget& budget);

  /// File `id` is complete; `digest` is that of what was written (-E). Any
  /// thread; waits while the committer is a few batches behind.
  void Push(std::uint32_t id, std::optional<DigestValue> digest);
  /// No more files: Run commits what is queued and returns.
  void Close() { queue_.Close(); }
  /// The transfer failed: Run returns at once.
  void Abort() { queue_.Abort(); }
  /// The committer thread. `committed` gets each batch once its names are on
  /// disk, in commit order. Throws BraidError on a digest mismatch or a
  /// failed sync or rename.
  void Run(const std::function<void(const std::vector<FileDone>&)>& committed);

 private:
  struct Complete {
    std::uint32_t id = 0;
    std::optional<DigestValue> digest;
  };
  /// The first file queued and everything else complete already, up to a batch.
  std::vector<Complete> NextBatch(Complete first);
  /// Checks the digests of a complete file; throws on a mismatch.
  FileDone Verdict(const Complete& c);

  /// The referenced objects outlive the committer thread; they lock themselves.
  SinkFiles& files_;
  SinkCheckpoints& checkpoints_;
  const HashAlgorithm hash_;
  const bool force_;
  const std::string host_;
  const std::size_t most_waiting_;
  const std::size_t batch_;
  BlockingQueue<Complete> queue_;  ///< locks itself
};

}  // namespace braid
