#pragma once
/// The destinations of a copy to many (--to-file FILE): one `[user@]host:path`
/// (or a local path) a line, as scp reads an operand; blank lines and lines
/// whose first non-blank is '#' are skipped.

#include <string>
#include <string_view>
#include <vector>

#include "braid/endpoint.h"

namespace braid {

/// Parses the file's text. Surrounding blanks of a line are not part of its
/// destination. Throws BraidError(kUsage) "FILE:LINE: why" for a line that is
/// no destination ('-', an operand ParseEndpoint refuses).
std::vector<Endpoint> ParseDestinationList(std::string_view text, const std::string& file_name);

/// The file's text. Throws BraidError(kUsage) naming the file when it cannot be
/// read or is larger than a list of destinations has any reason to be (1 MiB).
std::string ReadDestinationFile(const std::string& path);

/// The checks every destination list passes, however it was given: at least
/// one, at most kMaxDestinations, none twice, none stdout. Throws
/// BraidError(kUsage).
void CheckDestinations(const std::vector<Endpoint>& destinations);

}  // namespace braid
