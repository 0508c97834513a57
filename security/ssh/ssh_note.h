#pragma once
/// How the ssh layer says what it does: under -v (level 1) the key that logged
/// in and the host key's fingerprint, under -vv (level 2) each step. The
/// launcher passes a sink that prints through the agent's console, since some
/// of it (the server's banner, an agent key's comment) is text from elsewhere.

#include <functional>
#include <string>

namespace braid {

/// Called with a level (1: -v, 2: -vv) and one line; may be empty (say nothing).
using SshNote = std::function<void(int level, const std::string& text)>;

/// Calls `note` if it is set.
inline void Say(const SshNote& note, int level, const std::string& text) {
  if (note) note(level, text);
}

}  // namespace braid
