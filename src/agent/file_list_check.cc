#include "agent/file_list_check.h"

#include <string_view>

#include "braid/error.h"
#include "session/remote_path.h"

namespace braid {

namespace {

[[noreturn]] void Reject(const std::string& why) {
  throw BraidError(ErrorCode::kProtocol, "protocol error: " + why);
}

/// The name a source gives SRC when the path says it; nullopt when only the
/// source can tell ("." or "..", or a remote home, resolved there).
std::optional<std::string> NameOf(std::string path, bool remote) {
  if (path == "-") return "stdin";
  const std::optional<TildePrefix> tilde = remote ? SplitTilde(path) : std::nullopt;
  if (tilde && tilde->rest.find_first_not_of('/') == std::string::npos) return std::nullopt;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  return name;
}

}  // namespace

FileListCheck::FileListCheck(const std::vector<std::string>& source_paths, bool recursive,
                             bool remote_paths)
    : recursive_(recursive) {
  for (const auto& p : source_paths) {
    const bool glob = remote_paths && HasGlobMagic(p);
    patterns_.push_back(glob ? p : std::string());
    names_.push_back(glob ? std::nullopt : NameOf(p, remote_paths));
  }
}

void FileListCheck::Check(const FileEntry& e) {
  if (e.id != next_id_) Reject("file list out of order");
  ++next_id_;
  std::string_view path = e.path;
  std::string top(path.substr(0, path.find('/')));
  bool nested = top.size() != path.size();
  bool plain =
      e.kind == FileKind::kRegular || e.kind == FileKind::kStream || e.kind == FileKind::kHardLink;
  if (e.top >= names_.size() || (!recursive_ && (nested || !plain))) {
    Reject("the source sent \"" + e.path + "\", which was not asked for");
  }
  if (!patterns_[e.top].empty()) {
    // A glob's matches, each under its own name; the sink refuses one twice.
    if (!MatchesLastComponent(patterns_[e.top], top)) {
      Reject("the source sent \"" + e.path + "\", which " + patterns_[e.top] + " does not match");
    }
    return;
  }
  std::optional<std::string>& name = names_[e.top];
  if (!name) name = top;
  if (top != *name) {
    Reject("the source sent \"" + e.path + "\", which was not asked for (expected \"" + *name +
           "\")");
  }
}

}  // namespace braid
