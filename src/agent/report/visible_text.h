#pragma once
/// Text that reaches a terminal is shown, never obeyed. Much of what the
/// agent prints came from a peer (its warnings and errors, file names, its
/// stderr), and a peer that could put an escape sequence on the user's
/// terminal could forge braid's own lines, retitle the window or hide what
/// follows (scp's CVE-2019-6109). Pure: no IO.

#include <cstddef>
#include <string>
#include <string_view>

namespace braid {

/// The length of the well-formed UTF-8 sequence that starts at `s[i]`
/// (2 to 4), or 0 if there is none there (ASCII included).
std::size_t Utf8Length(std::string_view s, std::size_t i);

/// True for the C1 controls U+0080..U+009F: some terminals act on them as
/// they do on ESC [ and friends.
bool IsC1Control(std::string_view utf8_sequence);

/// `text` with every byte a terminal would act on written out instead as
/// `\xHH`: the C0 controls (newline and tab included, since a newline would
/// start a line that looks like braid's own), DEL, the C1 controls and any
/// byte that is not part of well-formed UTF-8. Printable UTF-8 is kept as it is.
std::string VisibleText(std::string_view text);

}  // namespace braid
