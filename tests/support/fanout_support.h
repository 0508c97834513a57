#pragma once
/// What the tests of a copy to many destinations (star_test, chain_test) share.

#include <sys/types.h>

#include <optional>
#include <string>

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

}  // namespace braid::testing
