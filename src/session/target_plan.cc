#include "session/target_plan.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "braid/error.h"

namespace braid {

namespace {
std::string Where(const std::string& host, const std::string& path) {
  return host.empty() ? path : host + ":" + path;
}
}  // namespace

TargetPlan PlanTarget(const std::string& target, const TargetInfo& info, std::size_t top_count,
                      const std::vector<FileEntry>& entries, const std::string& host) {
  if (target.empty()) throw BraidError(ErrorCode::kUsage, "empty target path");
  // A remote glob is one SRC with a top-level entry per match: it counts as
  // that many sources, or all of them would land on the one target name.
  std::size_t top_level = 0;
  for (const FileEntry& e : entries) top_level += e.path.find('/') == std::string::npos ? 1 : 0;
  top_count = std::max(top_count, top_level);
  TargetPlan plan;
  plan.base = target;
  while (plan.base.size() > 1 && plan.base.back() == '/') plan.base.pop_back();
  bool trailing_slash = target.size() > 1 && target.back() == '/';

  if (info.is_stream) {
    std::size_t data_files = 0;
    for (const auto& e : entries) {
      if (e.kind == FileKind::kDirectory || e.kind == FileKind::kSymlink) {
        throw BraidError(ErrorCode::kTargetUnwritable,
                         Where(host, target) + ": cannot write a directory tree to a stream");
      }
      ++data_files;
    }
    if (data_files != 1 || top_count != 1) {
      throw BraidError(ErrorCode::kTargetUnwritable,
                       Where(host, target) + ": only one file can be written to a stream");
    }
    plan.mode = TargetPlan::Mode::kStream;
    return plan;
  }
  if (info.exists && info.is_directory) {
    plan.mode = TargetPlan::Mode::kIntoDirectory;
    return plan;
  }
  // cp -r and scp -r: a missing DIR/ becomes the copy of the one directory
  // copied to it; only a file there contradicts the slash.
  const bool one_tree =
      top_count == 1 && !entries.empty() && entries.front().kind == FileKind::kDirectory;
  if (trailing_slash && !(one_tree && !info.exists)) {
    throw BraidError(
        ErrorCode::kTargetUnwritable,
        Where(host, target) + ": " + (info.exists ? "Not a directory" : "No such directory"));
  }
  if (top_count > 1) {
    throw BraidError(ErrorCode::kTargetUnwritable,
                     Where(host, target) + ": copying several sources needs a target directory");
  }
  if (info.exists && !entries.empty() && entries.front().kind == FileKind::kDirectory) {
    throw BraidError(ErrorCode::kTargetUnwritable,
                     Where(host, target) + ": cannot overwrite a non-directory with a directory");
  }
  plan.mode = TargetPlan::Mode::kAsTarget;
  return plan;
}

namespace {

[[noreturn]] void Reject(const std::string& why) {
  throw BraidError(ErrorCode::kProtocol, "protocol error: " + why);
}

}  // namespace

void CheckListShape(const std::vector<FileEntry>& entries) {
  std::unordered_map<std::string_view, const FileEntry*> seen;
  seen.reserve(entries.size());
  for (const FileEntry& e : entries) {
    std::string_view path = e.path;
    auto [it, fresh] = seen.emplace(path, &e);
    if (!fresh && it->second->top != e.top) {
      // `braid a/x b/x dir/`: the user's doing, not the source's.
      throw BraidError(ErrorCode::kTargetUnwritable,
                       "two sources have the same name \"" + e.path + "\"");
    }
    if (!fresh) Reject("\"" + e.path + "\" is in the file list twice");
    std::size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) continue;
    auto parent = seen.find(path.substr(0, slash));
    if (parent == seen.end() || parent->second->kind != FileKind::kDirectory) {
      Reject("the parent of \"" + e.path + "\" is not a directory of the list");
    }
  }
}

std::string FinalPath(const TargetPlan& plan, const FileEntry& entry) {
  switch (plan.mode) {
    case TargetPlan::Mode::kIntoDirectory:
      return (plan.base == "/" ? "" : plan.base) + "/" + entry.path;
    case TargetPlan::Mode::kStream:
      return plan.base;
    case TargetPlan::Mode::kAsTarget: {
      std::size_t slash = entry.path.find('/');
      return slash == std::string::npos ? plan.base : plan.base + entry.path.substr(slash);
    }
  }
  return plan.base;
}

std::string PartialPath(const std::string& final_path) { return final_path + ".braid-part"; }

std::string JournalPath(const std::string& final_path) { return final_path + ".braid-journal"; }

}  // namespace braid
