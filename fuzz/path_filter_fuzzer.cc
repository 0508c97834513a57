// PathFilter matches --exclude/--include patterns that arrive in SourceOpen
// from the agent against every path a source lists. Any pattern and path must
// be matched without a crash and in time bounded by their lengths; a plain
// pattern (no '/', '**', set or escape) must decide as fnmatch(3) does on the
// path's last name.

#include <fnmatch.h>

#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "source/path_filter.h"

using namespace braid;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // The first line is the pattern, the rest the path; a leading byte says
  // include or exclude and whether the path is a directory.
  if (size < 1) return 0;
  const std::uint8_t flags = data[0];
  const std::string_view text = fuzz::Text(data + 1, size - 1);
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return 0;
  const std::string pattern(text.substr(0, newline));
  const std::string path(text.substr(newline + 1));
  if (pattern.size() > kMaxFilterPatternLength || path.size() > 4096) return 0;

  const bool include = (flags & 1) != 0;
  const bool is_directory = (flags & 2) != 0;
  const PathFilter filter({{include, pattern}});
  const bool excluded = filter.Excludes(path, is_directory);
  if (include) BRAID_FUZZ_CHECK(!excluded);  // an include never leaves anything out

  const bool plain = !pattern.empty() && pattern.find_first_of("/[\\") == std::string::npos &&
                     pattern.find("**") == std::string::npos &&
                     pattern.find('\0') == std::string::npos &&
                     path.find('\0') == std::string::npos;
  if (plain && !include) {
    const std::string last = path.substr(path.find_last_of('/') + 1);
    BRAID_FUZZ_CHECK(excluded == (::fnmatch(pattern.c_str(), last.c_str(), 0) == 0));
  }
  return 0;
}
