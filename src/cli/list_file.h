#pragma once
/// The text of a file that lists operands (--to-file, -I, --files0-from),
/// read whole and bounded, so that a list names its problem before anything
/// starts.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace braid {

/// The text of `path` ("-": standard input). Throws BraidError(kUsage)
/// "OPTION: cannot read 'PATH': why", or "... is larger than N MiB" past
/// `max_bytes`.
std::string ReadListFile(const std::string& path, std::string_view option, std::size_t max_bytes);

/// A line a list holds, and its number (1-based) for messages.
struct ListedLine {
  std::size_t number = 0;
  std::string text;
};

/// The lines a list holds, in order, as rsync's --files-from and
/// --exclude-from read them: blank lines and lines that begin with '#' or ';'
/// are skipped, a line's trailing '\r' is dropped, nothing else is trimmed (a
/// name may end in a blank). With `nul_separated` each name ends at a NUL
/// instead and only empty names are skipped.
std::vector<ListedLine> ParseListLines(std::string_view text, bool nul_separated);

/// -I and --files0-from: the sources a list names (ParseListLines). Throws
/// BraidError(kUsage) "FILE:N: why" for a "-" (stdin cannot be listed).
std::vector<std::string> ParseSourceList(std::string_view text, bool nul_separated,
                                         const std::string& file_name);

}  // namespace braid
