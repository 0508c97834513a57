#pragma once
/// How a user's spelling of a fixed name (-E md5, --cipher AES-128-GCM) is
/// matched: ASCII letters in any case, nothing else loosened.

#include <cctype>
#include <cstddef>
#include <string_view>

namespace braid {

/// Whether `text` is `lower_name` (written in lower case) in any letter case.
inline bool MatchesName(std::string_view text, std::string_view lower_name) {
  if (text.size() != lower_name.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != lower_name[i]) return false;
  }
  return true;
}

}  // namespace braid
