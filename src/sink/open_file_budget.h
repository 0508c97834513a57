#pragma once
/// How the sink's files share the descriptors it may hold (pure).

#include <cstddef>

namespace braid {

/// Bounds on files the sink holds open, within `files_open` (session/descriptor_limit's
/// FilesOpenWithin): all files in flight, and of those the complete files waiting for
/// the committer, the committer's batch, and with -e / -E the files whose end may be
/// past the verifier's. A quarter is left for files still arriving.
struct OpenFileBudget {
  std::size_t in_flight = 0;       ///< every file with a state at the sink (BoundInFlight)
  std::size_t commit_waiting = 0;  ///< complete files queued for the committer
  std::size_t commit_batch = 0;    ///< files made durable by one sync
  std::size_t verify_ahead = 0;    ///< a file's end past the verifier's file, in files
};

/// At 4096, 1024 and 4096 (what a limit of thousands gives), each stops growing:
/// beyond that a batch's sync is already cheap per file.
OpenFileBudget SplitOpenFiles(std::size_t files_open);

}  // namespace braid
