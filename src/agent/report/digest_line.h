#pragma once
/// The line md5sum, sha256sum and xxh128sum print for a file, so that their
/// `-c` checks braid's -e / -E output as it is. Pure: no IO.

#include <string>
#include <string_view>

namespace braid {

/// "HEX  NAME". A name holding a backslash, a newline or a carriage return is
/// written as coreutils writes it: the line starts with a backslash and the
/// name has `\\`, `\n` and `\r` in their place. Any other byte a terminal
/// would act on (the name came from a peer) is shown as VisibleText shows it,
/// `\xHH`, under the same leading backslash: `md5sum -c` then refuses the
/// line rather than checking a file of another name.
std::string DigestLine(std::string_view hex, std::string_view name);

}  // namespace braid
