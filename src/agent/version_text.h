#pragma once
/// What `braid --version` prints: enough to tell, from a bug report or before
/// a copy between two hosts, which braid and which libraries are at work.

#include <string>

namespace braid {

/// One line each, newline-terminated: "braid 0.9.0", "protocol 3", then the
/// loaded OpenSSL, libssh2, zlib and xxHash.
std::string VersionText();

}  // namespace braid
