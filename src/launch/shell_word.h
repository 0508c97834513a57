#pragma once
/// Quoting for a remote shell: the launcher's commands are shell text.

#include <string>

namespace braid {

/// `text` as one word for /bin/sh (and csh): in single quotes, each ' as '\''.
std::string ShellWord(const std::string& text);

}  // namespace braid
