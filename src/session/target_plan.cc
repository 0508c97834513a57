#include "session/target_plan.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string_view>

#include "braid/error.h"

namespace braid {

namespace {

std::string Where(const std::string& host, const std::string& path) {
  return host.empty() ? path : host + ":" + path;
}

/// What PlanTarget and CheckListShape read of a list, however it is kept.
struct ListView {
  std::size_t size;
  std::function<FileKind(std::size_t)> kind;
  std::function<std::string_view(std::size_t)> path;
  std::function<std::uint16_t(std::size_t)> top;
};

ListView ViewOf(const PackedList& list) {
  auto id = [](std::size_t i) { return static_cast<std::uint32_t>(i); };
  return {list.size(), [&list, id](std::size_t i) { return list.kind(id(i)); },
          [&list, id](std::size_t i) { return list.path(id(i)); },
          [&list, id](std::size_t i) { return list.top(id(i)); }};
}

ListView ViewOf(const std::vector<FileEntry>& list) {
  return {list.size(), [&list](std::size_t i) { return list[i].kind; },
          [&list](std::size_t i) { return std::string_view(list[i].path); },
          [&list](std::size_t i) { return list[i].top; }};
}

[[noreturn]] void Reject(const std::string& why) {
  throw BraidError(ErrorCode::kProtocol, "protocol error: " + why);
}

/// The list's paths by hash, open addressing: 4 bytes a slot, at most two
/// thirds full, holding the index of the entry with that path.
class PathIndex {
 public:
  explicit PathIndex(const ListView& list) : list_(list) {
    std::size_t slots = 16;
    while (slots < list.size + list.size / 2 + 1) slots *= 2;
    slots_.assign(slots, kEmpty);
  }
  /// The entry already there with `i`'s path, or nullopt once `i` is added.
  std::optional<std::size_t> Insert(std::size_t i) {
    std::size_t at = Probe(list_.path(i));
    if (slots_[at] != kEmpty) return slots_[at];
    slots_[at] = static_cast<std::uint32_t>(i);
    return std::nullopt;
  }
  std::optional<std::size_t> Find(std::string_view path) const {
    std::size_t at = Probe(path);
    if (slots_[at] == kEmpty) return std::nullopt;
    return slots_[at];
  }

 private:
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  /// The slot that holds `path`, or the empty one where it would go.
  std::size_t Probe(std::string_view path) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t at = std::hash<std::string_view>{}(path)&mask;
    while (slots_[at] != kEmpty && list_.path(slots_[at]) != path) at = (at + 1) & mask;
    return at;
  }
  const ListView& list_;
  std::vector<std::uint32_t> slots_;
};

TargetPlan PlanOver(const std::string& target, const TargetInfo& info, std::size_t top_count,
                    const ListView& entries, const std::string& host) {
  if (target.empty()) throw BraidError(ErrorCode::kUsage, "empty target path");
  // A remote glob is one SRC with a top-level entry per match: it counts as
  // that many sources, or all of them would land on the one target name.
  std::size_t top_level = 0;
  for (std::size_t i = 0; i < entries.size; ++i) {
    top_level += entries.path(i).find('/') == std::string_view::npos ? 1 : 0;
  }
  top_count = std::max(top_count, top_level);
  TargetPlan plan;
  plan.base = target;
  while (plan.base.size() > 1 && plan.base.back() == '/') plan.base.pop_back();
  bool trailing_slash = target.size() > 1 && target.back() == '/';

  if (info.is_stream) {
    std::size_t data_files = 0;
    for (std::size_t i = 0; i < entries.size; ++i) {
      // A hard link counts as a file: two names are two files to a stream.
      if (entries.kind(i) == FileKind::kDirectory || entries.kind(i) == FileKind::kSymlink) {
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
  const bool tree_first = entries.size > 0 && entries.kind(0) == FileKind::kDirectory;
  const bool one_tree = top_count == 1 && tree_first;
  if (info.exists && info.is_directory) {
    // The directory an interrupted copy of this tree made: it goes on there.
    const bool resumed = one_tree && info.marked_root == entries.path(0);
    plan.mode = resumed ? TargetPlan::Mode::kAsTarget : TargetPlan::Mode::kIntoDirectory;
    return plan;
  }
  // cp -r and scp -r: a missing DIR/ becomes the copy of the one directory
  // copied to it; only a file there contradicts the slash.
  if (trailing_slash && !(one_tree && !info.exists)) {
    throw BraidError(
        ErrorCode::kTargetUnwritable,
        Where(host, target) + ": " + (info.exists ? "Not a directory" : "No such directory"));
  }
  if (top_count > 1) {
    throw BraidError(ErrorCode::kTargetUnwritable,
                     Where(host, target) + ": copying several sources needs a target directory");
  }
  if (info.exists && tree_first) {
    throw BraidError(ErrorCode::kTargetUnwritable,
                     Where(host, target) + ": cannot overwrite a non-directory with a directory");
  }
  plan.mode = TargetPlan::Mode::kAsTarget;
  return plan;
}

void CheckShapeOf(const ListView& entries) {
  PathIndex seen(entries);
  for (std::size_t i = 0; i < entries.size; ++i) {
    std::string_view path = entries.path(i);
    if (std::optional<std::size_t> twin = seen.Insert(i)) {
      if (entries.top(*twin) != entries.top(i)) {
        // `braid a/x b/x dir/`: the user's doing, not the source's.
        throw BraidError(ErrorCode::kTargetUnwritable,
                         "two sources have the same name \"" + std::string(path) + "\"");
      }
      Reject("\"" + std::string(path) + "\" is in the file list twice");
    }
    std::size_t slash = path.rfind('/');
    if (slash == std::string_view::npos) continue;
    std::optional<std::size_t> parent = seen.Find(path.substr(0, slash));
    if (!parent || entries.kind(*parent) != FileKind::kDirectory) {
      Reject("the parent of \"" + std::string(path) + "\" is not a directory of the list");
    }
  }
}

}  // namespace

TargetPlan PlanTarget(const std::string& target, const TargetInfo& info, std::size_t top_count,
                      const PackedList& entries, const std::string& host) {
  return PlanOver(target, info, top_count, ViewOf(entries), host);
}

TargetPlan PlanTarget(const std::string& target, const TargetInfo& info, std::size_t top_count,
                      const std::vector<FileEntry>& entries, const std::string& host) {
  return PlanOver(target, info, top_count, ViewOf(entries), host);
}

void CheckListShape(const PackedList& entries) { CheckShapeOf(ViewOf(entries)); }

void CheckListShape(const std::vector<FileEntry>& entries) { CheckShapeOf(ViewOf(entries)); }

std::string FinalPath(const TargetPlan& plan, std::string_view entry_path) {
  switch (plan.mode) {
    case TargetPlan::Mode::kIntoDirectory:
      return (plan.base == "/" ? "" : plan.base) + "/" + std::string(entry_path);
    case TargetPlan::Mode::kStream:
      return plan.base;
    case TargetPlan::Mode::kAsTarget: {
      std::size_t slash = entry_path.find('/');
      return slash == std::string_view::npos ? plan.base
                                             : plan.base + std::string(entry_path.substr(slash));
    }
  }
  return plan.base;
}

std::string TreeRootMarkPath(const std::string& base) { return base + ".braid-tree"; }

std::string PartialPath(const std::string& final_path) { return final_path + ".braid-part"; }

std::string JournalPath(const std::string& final_path) { return final_path + ".braid-journal"; }

}  // namespace braid
