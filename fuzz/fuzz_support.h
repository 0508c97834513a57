#pragma once
/// Shared by the fuzz targets: a BraidError is the decoders' documented answer
/// to bad input, so it is swallowed; anything else escapes to libFuzzer as a
/// finding (an uncaught exception aborts, as a crash or sanitizer report does).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "braid/error.h"

namespace braid::fuzz {

inline std::span<const std::uint8_t> Bytes(const std::uint8_t* data, std::size_t size) {
  return {data, size};
}

inline std::string_view Text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

/// A property the decoder promised does not hold: report and abort so libFuzzer
/// saves the input (assert() would vanish under NDEBUG in RelWithDebInfo).
#define BRAID_FUZZ_CHECK(cond)                                                              \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      std::fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)

/// Runs `f`; a BraidError with `expected` (kProtocol for peer bytes, kUsage
/// for what a user typed) is a documented rejection, any other code is a
/// finding. Returns whether `f` accepted its input.
template <typename F>
bool Accepts(ErrorCode expected, F&& f) {
  try {
    f();
    return true;
  } catch (const BraidError& e) {
    if (e.code() != expected) {
      std::fprintf(stderr, "unexpected error code %s: %s\n", ErrorName(e.code()), e.what());
      std::abort();
    }
    return false;
  }
}

}  // namespace braid::fuzz
