#pragma once
/// The braid command line: bbcp's short flags, scp's operands, and the hidden server mode.

#include <ostream>

#include "braid/options.h"

namespace braid {

struct CommandLine {
  /// kVersion: --version, which main prints (the libraries' versions are not
  /// the command line's business).
  enum class Mode { kCopy, kServe, kExit, kVersion } mode = Mode::kCopy;
  Options options;    ///< for kCopy (kServe also fills the flags, e.g. -v)
  int serve_fd = -1;  ///< --serve-fd N (hidden): control protocol on fd N instead of stdin/stdout
  int exit_code = 0;  ///< for kExit (after --help printed to stdout)
};

/// Parses `braid [options] SRC... DST` or `braid --serve [--serve-fd N] [options]`.
/// --help prints to stdout and returns Mode::kExit; --version returns Mode::kVersion.
/// Throws BraidError(kUsage) with a one-line message for any bad input.
CommandLine ParseCommandLine(int argc, const char* const* argv);

/// As above, printing --help to `out` so tests can read it.
CommandLine ParseCommandLine(int argc, const char* const* argv, std::ostream& out);

}  // namespace braid
