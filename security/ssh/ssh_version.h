#pragma once
/// The libssh2 braid runs with, for `braid --version`.

#include <string>

namespace braid {

/// "1.10.0": the loaded library's own version, not the headers'.
std::string Libssh2Version();

}  // namespace braid
