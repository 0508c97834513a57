#pragma once
/// What the tests of a copy to many destinations (star_test, chain_test) share.

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/background_braid.h"
#include "support/mini_json.h"

namespace braid::testing {

/// The exit status of a copy to many where some destinations failed.
constexpr int kSomeDestinationsFailed = 16;

/// Destination `d` (as typed) in the "destinations" of a --json report.
const JsonValue& DestinationIn(const JsonValue& json, const std::string& d);

/// The process among `parent`'s children that has `path` open: one
/// destination's sink, told apart from the other servers (a journal only
/// its sink holds open), so a test kills exactly that one.
std::optional<pid_t> ChildWithOpen(pid_t parent, const std::string& path);

/// What a copy of a file and a tree to three destinations starts from: a
/// file of 9 MiB and a tree (a.bin, sub/b.bin, an empty sub/deeper/c.bin)
/// under `dir`, and three empty directories there for the destinations.
struct FileAndTree {
  std::string file;
  std::string tree;
  std::vector<std::string> destinations;  ///< dir/r1, dir/r2, dir/l3
  std::uint64_t bytes = 0;                ///< of the file and the tree together
};
FileAndTree MakeFileAndTree(const std::string& dir);

/// Once `target`'s journal holds at least `bytes`, sends `signal` to the child
/// of `copy` that has `open` open (a sink: its partial file or journal), and
/// says which it was in `signalled` (if given). Fails the test, naming what it
/// waited for, when either does not happen in 20 s.
void SignalSinkOnceJournaled(const BackgroundBraid& copy, const std::string& target,
                             std::uint64_t bytes, const std::string& open, int signal,
                             pid_t* signalled = nullptr);

}  // namespace braid::testing
