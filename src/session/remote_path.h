#pragma once
/// A path the user typed after `host:`, read as scp reads it, by the end on
/// that host: a leading `~` or `~user` is that user's home, a relative path is
/// relative to the home (where sshd starts `braid --serve`), and a SRC with
/// glob characters names what it matches, expanded with glob(3) and never by
/// a shell, so no name can run a command there. Paths of a local end have
/// been through the user's shell already and are taken as they are.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace braid {

/// A leading `~user` ("" for a bare `~`) and the rest from the first '/' on.
struct TildePrefix {
  std::string user;
  std::string rest;  ///< "" or "/..."
};

/// The tilde prefix of `path`, or nullopt when it does not start with '~'. Pure.
std::optional<TildePrefix> SplitTilde(std::string_view path);

/// True when glob(3) reads `path` as a pattern: a '*', '?' or '[' that no
/// backslash escapes. Pure.
bool HasGlobMagic(std::string_view path);

/// The last component of `path` without trailing slashes ("run*" of
/// "/data/run*/"); "" for "/" or "". Pure.
std::string LastComponent(std::string_view path);

/// True when `name` (one path component) is what the last component of the
/// glob `pattern` matches, as glob(3) matched it (fnmatch, a leading dot
/// matched only explicitly), or that component itself (a name that exists as
/// typed is taken as it is). "." and ".." never match. Pure.
bool MatchesLastComponent(std::string_view pattern, const std::string& name);

/// `path` with a leading `~` or `~user` replaced by that home directory
/// ($HOME, else the passwd entry, for `~`). nullopt when the user does not
/// exist; `path` itself when it has no tilde prefix.
std::optional<std::string> ExpandTilde(const std::string& path);

/// What the glob `pattern` matches, sorted, without "." and ".."; empty when
/// nothing matches (or a directory on the way cannot be read).
std::vector<std::string> GlobMatches(const std::string& pattern);

/// `path` for a message: absolute, prefixed with the working directory when
/// it is relative.
std::string AbsoluteForMessage(const std::string& path);

}  // namespace braid
