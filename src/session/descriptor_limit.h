#pragma once
/// How many descriptors this process may open (RLIMIT_NOFILE), and raising it.
///
/// A sink holds a descriptor for every file from its first block until it is
/// committed, and a tree of small files completes faster than it commits: a few
/// thousand files wait at once. Linux starts most sessions at a soft limit of 1024
/// under a far higher hard one (Debian: 1024 and 524288) because select(2) cannot
/// watch a descriptor past 1023; braid never calls select, so each process takes the
/// hard limit as its own, and the sink sizes what it keeps open to what it got.

#include <cstddef>
#include <cstdint>

namespace braid {

/// Raises the soft limit on open descriptors to the hard one (at most 1 << 20,
/// so that nothing sized by it grows without bound). Best effort: a limit that
/// cannot be raised stays as it was. Returns the soft limit now in effect.
std::uint64_t RaiseDescriptorLimit();

/// The soft limit on open descriptors now in effect.
std::uint64_t DescriptorLimit();

/// Of a process's `limit` descriptors, how many the sink's files may hold at once:
/// what is left after room for `streams` data streams (a socket each, and the
/// pipes, journals and directories a copy also opens), at least kMinFilesOpen.
std::size_t FilesOpenWithin(std::uint64_t limit, std::size_t streams);

/// The fewest files a sink is let keep open, however low the limit.
constexpr std::size_t kMinFilesOpen = 16;

}  // namespace braid
