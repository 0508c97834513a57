#pragma once
/// Syscall failures as exceptions whose message names what failed and why.

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace wanem {

/// Throws "WHAT: strerror(errno)". Call right after the failing syscall.
[[noreturn]] inline void ThrowErrno(const std::string& what) {
  const int saved = errno;
  throw std::runtime_error(what + ": " + std::strerror(saved));
}

}  // namespace wanem
