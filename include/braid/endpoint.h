#pragma once
/// One side of a copy as the user wrote it: `[user@]host:path`, `[user@][v6]:path` or a path.

#include <string>

namespace braid {

struct Endpoint {
  std::string user;  ///< empty: from ~/.ssh/config or the local user
  std::string host;  ///< empty: a local path
  std::string path;  ///< as written; "-" is stdin/stdout

  bool is_remote() const { return !host.empty(); }
  bool is_stdio() const { return host.empty() && path == "-"; }
  /// "host:path" or "path", for messages.
  std::string Display() const { return host.empty() ? path : host + ":" + path; }
  /// "user@host:path" when a user was given, else Display(): one destination
  /// among many, named as the user typed it (--to, --to-file).
  std::string AsTyped() const { return user.empty() ? Display() : user + "@" + Display(); }
};

}  // namespace braid
