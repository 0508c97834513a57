#pragma once
/// One sink writes a partial file at a time. Each holds an exclusive flock on
/// the partial files it has open, so a retry that reaches the host before the
/// earlier attempt's sink has heard its session end (a link that came back),
/// or a second copy to the same target, never writes into the same file as a
/// live sink, or has its file removed under it when that sink cleans up.
/// Advisory: only braid honours it. A file system without flock goes unlocked.

#include <chrono>
#include <string>

#include "sink/sink_file_system.h"

namespace braid {

/// Opens `path` read-write (created 0600 if missing) and locks it; with
/// `truncate` empties it once the lock is held, never before. -1 with errno
/// set on failure; EWOULDBLOCK: another process holds it.
int OpenAndLockPartial(SinkFileSystem& fs, const std::string& path, bool truncate);

/// Waits until no process holds a lock on the partial file at `path` (true,
/// and true at once when there is none), polling until `deadline` (false).
bool AwaitPartialFree(SinkFileSystem& fs, const std::string& path,
                      std::chrono::steady_clock::time_point deadline);

}  // namespace braid
