#include "engine/target_plan.h"

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
  if (trailing_slash) {
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
