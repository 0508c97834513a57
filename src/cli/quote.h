#pragma once
/// Echoing user input back in error messages without letting it forge
/// terminal output or flood the screen.

#include <cstddef>
#include <string>
#include <string_view>

namespace braid {

/// `text` with control bytes as \xNN (UTF-8 stays readable), cut at `max` bytes with "...".
std::string EscapeControl(std::string_view text, std::size_t max);
/// As EscapeControl, in double quotes, with '"' and '\' backslash-escaped.
std::string QuoteForMessage(std::string_view text, std::size_t max);

}  // namespace braid
