#pragma once
/// Splits a copy operand the way scp does: `[user@]host:path`, `[user@][v6addr]:path`, or a
/// local path.

#include <string_view>

#include "braid/endpoint.h"

namespace braid {

/// Parses one SRC or DST operand.
///
/// Rules, as in scp so users' habits carry over:
///  - `host:path` and `user@host:path` are remote; the user is everything before the last '@'
///    of the host part. `host:` (empty path) means the remote home directory: path ".".
///  - `[addr]:path` and `user@[addr]:path` name an IPv6 literal; the brackets are stripped.
///  - A '/' before the first ':' makes the whole spec a local path (`./a:b`, `/x/y:z`), and
///    so does a leading ':'. Write `./name` for a local file whose name contains ':' or '['.
///  - `-` is stdin (as a source) or stdout (as the destination).
///  - Windows drive letters get no special treatment: `C:\x` is host "C", path "\x".
///
/// Throws BraidError(kUsage) quoting the spec when it is empty, contains a NUL byte, has an
/// empty user or host around '@', an unterminated or empty '[...]', or a host or user that
/// could not be a name (control characters, spaces, a leading '-').
Endpoint ParseEndpoint(std::string_view spec);

}  // namespace braid
