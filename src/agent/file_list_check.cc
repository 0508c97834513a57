#include "agent/file_list_check.h"

#include <string_view>

#include "braid/error.h"

namespace braid {

namespace {

[[noreturn]] void Reject(const std::string& why) {
  throw BraidError(ErrorCode::kProtocol, "protocol error: " + why);
}

/// The name a source gives SRC when the path says it; nullopt when only the
/// source can tell ("." or "..", resolved there).
std::optional<std::string> NameOf(std::string path) {
  if (path == "-") return "stdin";
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  return name;
}

}  // namespace

FileListCheck::FileListCheck(const std::vector<std::string>& source_paths, bool recursive)
    : recursive_(recursive) {
  for (const auto& p : source_paths) names_.push_back(NameOf(p));
}

void FileListCheck::Check(const FileEntry& e) {
  if (e.id != next_id_) Reject("file list out of order");
  ++next_id_;
  std::string_view path = e.path;
  std::string top(path.substr(0, path.find('/')));
  bool nested = top.size() != path.size();
  bool plain = e.kind == FileKind::kRegular || e.kind == FileKind::kStream;
  if (e.top >= names_.size() || (!recursive_ && (nested || !plain))) {
    Reject("the source sent \"" + e.path + "\", which was not asked for");
  }
  std::optional<std::string>& name = names_[e.top];
  if (!name) name = top;
  if (top != *name) {
    Reject("the source sent \"" + e.path + "\", which was not asked for (expected \"" + *name +
           "\")");
  }
}

}  // namespace braid
