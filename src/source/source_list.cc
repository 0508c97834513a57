#include "source/source_list.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "braid/error.h"
#include "braid/unique_fd.h"
#include "session/directory_names.h"
#include "session/remote_path.h"
#include "source/path_filter.h"
#include "source/source_fingerprint.h"

namespace braid {
namespace {

/// Deeper trees than this are refused rather than risking the stack.
constexpr int kMaxDepth = 512;
/// A glob's matches named in its -v note; the rest are counted.
constexpr std::size_t kMatchesNamed = 4;

class ListBuilder {
 public:
  ListBuilder(const SourceListRequest& request, std::vector<std::string>& warnings)
      : request_(request), warnings_(warnings), filter_(request.filters) {}

  /// One SRC as typed: as scp reads a remote path (a home, a glob's
  /// matches), else as it is.
  void AddSource(const std::string& typed, std::uint16_t top) {
    if (request_.command) return AddCommand(typed, top);
    if (!request_.remote_paths || typed == "-") return AddTop(typed, top);
    const std::optional<std::string> path = ExpandTilde(typed);
    if (!path) {
      return LeaveOut(BraidError(ErrorCode::kSourceUnreadable,
                                 Where(typed) + ": no such user " + SplitTilde(typed)->user));
    }
    struct stat st {};
    if (!HasGlobMagic(*path) || ::lstat(path->c_str(), &st) == 0) {
      if (AbsoluteForMessage(*path) != typed) {
        list_.notes.push_back(Where(typed) + " is " + AbsoluteForMessage(*path));
      }
      return AddTop(*path, top);
    }
    const std::vector<std::string> matches = GlobMatches(*path);
    if (matches.empty()) {
      return LeaveOut(BraidError(ErrorCode::kSourceUnreadable,
                                 Where(typed) + ": no file matches this pattern"));
    }
    CheckDistinctNames(typed, matches);
    list_.notes.push_back(DescribeMatches(typed, matches));
    for (const std::string& match : matches) AddTop(match, top);
  }

  /// -N i: what the command writes, read once to its end as stdin is.
  void AddCommand(const std::string& command, std::uint16_t top) {
    list_.top_paths.push_back(command);
    list_.top_first_ids.push_back(static_cast<std::uint32_t>(list_.entries.size()));
    PushStream(top, "pipe", command);
  }

  /// stdin, or a command's output: one entry of unknown size unless --size.
  void PushStream(std::uint16_t top, std::string name, const std::string& local) {
    FileEntry e;
    e.top = top;
    e.kind = FileKind::kStream;
    e.path = std::move(name);
    e.size = request_.device_size.value_or(kUnknownSize);
    e.mode = 0644;
    Push(std::move(e), local);
  }

  void AddTop(const std::string& path, std::uint16_t top) {
    list_.top_paths.push_back(path);
    list_.top_first_ids.push_back(static_cast<std::uint32_t>(list_.entries.size()));
    if (path == "-") return PushStream(top, "stdin", "-");
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return LeaveOut(path, errno);
    std::string name = TopName(path);
    if (S_ISDIR(st.st_mode)) {
      if (!request_.recursive) {
        throw BraidError(ErrorCode::kSourceUnreadable,
                         Where(path) + " is a directory (use -r to copy directories)");
      }
      if (int err = Unreadable(path, O_DIRECTORY)) return LeaveOut(path, err);
      entered_.insert({st.st_dev, st.st_ino});
      Push(EntryFrom(st, top, name, FileKind::kDirectory), path);
      Walk(path, name, top, 1);
    } else if (S_ISREG(st.st_mode)) {
      if (int err = Unreadable(path, 0)) return LeaveOut(path, err);
      PushFile(st, top, name, path, request_.device_size);
    } else if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      if (S_ISCHR(st.st_mode) && !request_.device_size) {
        throw BraidError(ErrorCode::kUsage,
                         Where(path) + " is a device; give --size to say how much to read");
      }
      // Opening a FIFO to test it would be seen by its writer as a reader
      // that came and went (and broke its pipe); ask the permission bits.
      int err = 0;
      if (S_ISFIFO(st.st_mode)) {
        err = ::access(path.c_str(), R_OK) != 0 ? errno : 0;
      } else {
        err = Unreadable(path, O_NONBLOCK);
      }
      if (err != 0) return LeaveOut(path, err);
      FileEntry e = EntryFrom(st, top, name, FileKind::kStream);
      e.size = request_.device_size.value_or(kUnknownSize);
      Push(std::move(e), path);
    } else {
      throw BraidError(ErrorCode::kSourceUnreadable,
                       Where(path) + " is not a file, directory, pipe or device");
    }
  }

  SourceList Take() {
    // Nothing at all to copy: the copy fails, as it always did for one bad SRC.
    if (list_.entries.empty() && first_left_out_) throw *first_left_out_;
    return std::move(list_);
  }

 private:
  std::string Where(const std::string& path) const {
    return request_.host.empty() ? path : request_.host + ":" + path;
  }
  [[noreturn]] void Fail(const std::string& path, int err) const {
    throw BraidError(ErrorCode::kSourceUnreadable, DescribeErrno(request_.host, path, err));
  }
  /// 0 when `path` opens for reading, else the errno.
  static int Unreadable(const std::string& path, int flags) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | flags));
    return fd.valid() ? 0 : errno;
  }
  /// `path` cannot be read: it is left out, and the copy goes on with the rest.
  void LeaveOut(const std::string& path, int err) {
    LeaveOut(BraidError(ErrorCode::kSourceUnreadable, DescribeErrno(request_.host, path, err)));
  }
  void LeaveOut(const BraidError& error) {
    warnings_.push_back(std::string(error.what()) + "; not copied");
    ++list_.not_listed;
    if (!first_left_out_) first_left_out_ = error;
  }

  /// Two matches of one glob under one name would be one file at the target.
  void CheckDistinctNames(const std::string& typed, const std::vector<std::string>& matches) {
    std::map<std::string, const std::string*> seen;
    for (const std::string& match : matches) {
      auto [it, fresh] = seen.emplace(LastComponent(match), &match);
      if (!fresh) {
        throw BraidError(ErrorCode::kUsage, Where(typed) + " matches two entries named \"" +
                                                it->first + "\" (" + *it->second + " and " + match +
                                                "); copy them one at a time");
      }
    }
  }

  std::string DescribeMatches(const std::string& typed, const std::vector<std::string>& matches) {
    std::string note = Where(typed) + " matches " + std::to_string(matches.size()) + ":";
    for (std::size_t i = 0; i < matches.size() && i < kMatchesNamed; ++i) {
      note += (i == 0 ? " " : ", ") + AbsoluteForMessage(matches[i]);
    }
    if (matches.size() > kMatchesNamed) {
      note += " and " + std::to_string(matches.size() - kMatchesNamed) + " more";
    }
    return note;
  }

  std::string TopName(const std::string& path) const {
    std::string p = path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    std::string name = p.substr(p.find_last_of('/') + 1);
    if (name.empty() || name == "." || name == "..") {
      char resolved[PATH_MAX];
      if (::realpath(path.c_str(), resolved) == nullptr) Fail(path, errno);
      std::string r = resolved;
      name = r.substr(r.find_last_of('/') + 1);
    }
    if (name.empty()) {
      throw BraidError(ErrorCode::kUsage, Where(path) + ": cannot copy the root directory as such");
    }
    return name;
  }

  static FileEntry EntryFrom(const struct stat& st, std::uint16_t top, std::string name,
                             FileKind kind) {
    FileEntry e;
    e.top = top;
    e.kind = kind;
    e.path = std::move(name);
    e.size = kind == FileKind::kRegular ? static_cast<std::uint64_t>(st.st_size) : 0;
    e.mode = st.st_mode & 07777;
    e.mtime_sec = st.st_mtim.tv_sec;
    e.mtime_nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
    e.uid = st.st_uid;
    e.gid = st.st_gid;
    return e;
  }

  /// A regular file; one on /proc, /sys and the like, whose size says nothing
  /// of what a read returns, is read to its end as a pipe is, and so is every
  /// one with -R (followed at its end until quiet). `cap`: --size.
  void PushFile(const struct stat& st, std::uint16_t top, std::string name, std::string local,
                std::optional<std::uint64_t> cap) {
    if (request_.growing_ms > 0 || SizeLies(st.st_dev, local)) {
      FileEntry e = EntryFrom(st, top, std::move(name), FileKind::kStream);
      e.size = cap.value_or(kUnknownSize);
      Push(std::move(e), std::move(local));
      return;
    }
    if (request_.hard_links && st.st_nlink > 1) {
      auto [first, fresh] = first_names_.try_emplace({st.st_dev, st.st_ino}, name);
      if (!fresh) {
        FileEntry e = EntryFrom(st, top, std::move(name), FileKind::kHardLink);
        e.size = 0;
        e.link_target = first->second;
        Push(std::move(e), std::move(local));
        return;
      }
    }
    FileEntry e = EntryFrom(st, top, std::move(name), FileKind::kRegular);
    if (cap) e.size = std::min(e.size, *cap);
    // Fewer blocks than its size needs: it has holes (or its file system
    // compresses it); the reader asks where they are.
    e.sparse =
        static_cast<std::uint64_t>(st.st_blocks) * 512 < static_cast<std::uint64_t>(st.st_size);
    Push(std::move(e), std::move(local), StampOf(st));
  }

  /// Whether the file system of `dev` is one whose sizes lie; asked once per device.
  bool SizeLies(dev_t dev, const std::string& path) {
    auto known = size_lies_.find(dev);
    if (known != size_lies_.end()) return known->second;
    struct statfs fs {};
    bool lies = ::statfs(path.c_str(), &fs) == 0 && SizeIsNotContent(fs.f_type);
    size_lies_.emplace(dev, lies);
    return lies;
  }

  /// `local` is where the entry is read from, and what SourceList::File gives again.
  /// A regular file's `stamp` is its entry's size and mtime and its ctime;
  /// only the ctime is kept, and stat's size where the entry's differs.
  void Push(FileEntry e, const std::string& local, FileStamp stamp = {}) {
    e.id = static_cast<std::uint32_t>(list_.entries.size());
    if (e.kind == FileKind::kRegular && e.size >= kResumeMinSize) {
      UniqueFd fd(::open(local.c_str(), O_RDONLY | O_CLOEXEC));
      if (fd.valid()) e.fingerprint = SourceFingerprint(fd.get(), e.size);
    }
    if (e.kind == FileKind::kRegular && stamp.size != e.size) {
      list_.stat_sizes.emplace_back(e.id, stamp.size);
    }
    list_.ctimes.push_back(stamp.ctime_sec, stamp.ctime_nsec);
    list_.entries.Add(e);
  }

  /// The names in directory `fd` but "." and "..", sorted; an errno on failure.
  static int ReadNames(int fd, std::vector<std::string>& names) {
    int err = ForEachName(fd, [&](std::string_view name) { names.emplace_back(name); });
    std::sort(names.begin(), names.end());
    return err;
  }

  static UniqueFd OpenDirectory(const std::string& dir) {
    return UniqueFd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }

  void Walk(const std::string& dir, const std::string& rel, std::uint16_t top, int depth) {
    if (depth > kMaxDepth) {
      throw BraidError(ErrorCode::kSourceUnreadable, Where(dir) + ": directory tree too deep");
    }
    // Each entry is looked up in the directory, not by its whole path: a tree
    // of a million files walked every path from the root, several times.
    UniqueFd dir_fd = OpenDirectory(dir);
    // The directory itself is made at the target; what is inside is not.
    if (!dir_fd.valid()) return LeaveOut(dir, errno);
    std::vector<std::string> names;
    if (int err = ReadNames(dir_fd.get(), names)) return LeaveOut(dir, err);
    for (const auto& n : names) {
      if (!WalkEntry(dir_fd, dir, n, rel + "/" + n, top, depth)) return;
    }
  }

  /// One entry `name` of directory `dir_fd` (`dir` by path); false once the
  /// directory cannot be opened again after a walk into a subdirectory.
  bool WalkEntry(UniqueFd& dir_fd, const std::string& dir, const std::string& name,
                 const std::string& child, std::uint16_t top, int depth) {
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (::fstatat(dir_fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      LeaveOut(path, errno);  // gone since the directory was read
      return true;
    }
    if (S_ISLNK(st.st_mode) && request_.follow_symlinks) {
      struct stat target {};
      if (::fstatat(dir_fd.get(), name.c_str(), &target, 0) != 0) {
        // Left out quietly when a rule leaves it out anyway.
        if (filter_.empty() || !filter_.Excludes(child, false)) {
          warnings_.push_back("skipping " + Where(path) + ": dangling symbolic link");
        }
        return true;
      }
      st = target;
    }
    if (!filter_.empty() && filter_.Excludes(child, S_ISDIR(st.st_mode))) return true;
    if (S_ISDIR(st.st_mode)) {
      // Following links can lead back up the tree; each directory is entered once.
      if (!entered_.insert({st.st_dev, st.st_ino}).second) {
        warnings_.push_back("skipping " + Where(path) + ": a directory already copied (link loop)");
        return true;
      }
      Push(EntryFrom(st, top, child, FileKind::kDirectory), path);
      // Closed while the walk goes down: a deep tree would hold one descriptor a level.
      dir_fd.Reset();
      Walk(path, child, top, depth + 1);
      dir_fd = OpenDirectory(dir);
      if (!dir_fd.valid()) LeaveOut(dir, errno);
      return dir_fd.valid();
    }
    if (S_ISREG(st.st_mode)) {
      // A permission check, not an open: a tree of a million files.
      if (::faccessat(dir_fd.get(), name.c_str(), R_OK, 0) != 0) {
        LeaveOut(path, errno);
        return true;
      }
      PushFile(st, top, child, path, std::nullopt);
    } else if (S_ISLNK(st.st_mode)) {
      std::string target(static_cast<std::size_t>(PATH_MAX), '\0');
      ssize_t n_read = ::readlinkat(dir_fd.get(), name.c_str(), target.data(), target.size());
      if (n_read < 0) {
        LeaveOut(path, errno);
        return true;
      }
      target.resize(static_cast<std::size_t>(n_read));
      FileEntry e = EntryFrom(st, top, child, FileKind::kSymlink);
      e.link_target = std::move(target);
      Push(std::move(e), path);
    } else {
      warnings_.push_back("skipping " + Where(path) + ": not a regular file, directory or link");
    }
    return true;
  }

  const SourceListRequest& request_;
  std::vector<std::string>& warnings_;
  const PathFilter filter_;
  SourceList list_;
  std::set<std::pair<dev_t, ino_t>> entered_;
  /// -H: the list path of each file with more than one link, by its inode.
  std::map<std::pair<dev_t, ino_t>, std::string> first_names_;
  std::map<dev_t, bool> size_lies_;  ///< SizeLies's answer per device
  std::optional<BraidError> first_left_out_;
};

}  // namespace

void ListedTimes::push_back(std::int64_t sec, std::uint32_t nsec) {
  // Not make_unique: its value-initialisation would touch every page of the block now.
  if (size_ % kPerBlock == 0) {
    sec_.emplace_back(new std::int64_t[kPerBlock]);
    nsec_.emplace_back(new std::uint32_t[kPerBlock]);
  }
  sec_.back()[size_ % kPerBlock] = sec;
  nsec_.back()[size_ % kPerBlock] = nsec;
  ++size_;
}

FileStamp SourceList::Stamp(const FileEntry& e) const {
  if (e.kind != FileKind::kRegular) return {};
  FileStamp stamp{e.size, e.mtime_sec, e.mtime_nsec, ctimes.sec(e.id), ctimes.nsec(e.id)};
  auto it = std::lower_bound(stat_sizes.begin(), stat_sizes.end(), e.id,
                             [](const std::pair<std::uint32_t, std::uint64_t>& p,
                                std::uint32_t id) { return p.first < id; });
  if (it != stat_sizes.end() && it->first == e.id) stamp.size = it->second;
  return stamp;
}

SourceFile SourceList::File(std::uint32_t id) const {
  FileEntry e = entries.Entry(id);
  if (followed) {
    std::string local = FinalPath(*followed, e);
    return {std::move(e), std::move(local), FileStamp{}};
  }
  // The last top path whose entries start at or before `id` (a top path
  // that was left out has none, and shares its start with the next one).
  const auto after = std::upper_bound(top_first_ids.begin(), top_first_ids.end(), id);
  const std::string& top = top_paths[static_cast<std::size_t>(after - top_first_ids.begin()) - 1];
  std::size_t slash = e.path.find('/');
  // The top's own entry (or stdin) is read by the name typed; what is inside
  // it by that name and the rest of the entry's path, as the walk found it.
  std::string local = slash == std::string::npos ? top : top + e.path.substr(slash);
  FileStamp stamp = Stamp(e);
  return {std::move(e), std::move(local), stamp};
}

SourceList BuildSourceList(const SourceListRequest& request, std::vector<std::string>& warnings) {
  ListBuilder builder(request, warnings);
  for (std::size_t i = 0; i < request.paths.size(); ++i) {
    builder.AddSource(request.paths[i], static_cast<std::uint16_t>(i));
  }
  SourceList list = builder.Take();
  list.growing_ms = request.growing_ms;
  list.command = request.command;
  return list;
}

}  // namespace braid
