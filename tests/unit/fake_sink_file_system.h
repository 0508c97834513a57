#pragma once
/// An in-memory SinkFileSystem for SinkFiles' unit tests: paths map to nodes
/// (directory, file with its bytes, link), descriptors to the node they
/// opened. Every call that changes something is logged, so a test can prove
/// nothing was created where it must not be. Descriptors are real ones on
/// /dev/null, so the UniqueFd that closes them closes nothing else.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sink/sink_file_system.h"

namespace braid::testing {

class FakeSinkFileSystem final : public SinkFileSystem {
 public:
  struct Node {
    char type = 'f';  ///< 'd' directory, 'f' file, 'l' link
    mode_t mode = 0644;
    timespec mtime{};
    std::string data;
    std::string link;
  };

  FakeSinkFileSystem() { AddDirectory("/t"); }

  /// Called at the start of every Pwrite (on the writing thread), if set.
  std::function<void()> before_pwrite;
  /// posix_fallocate calls so far.
  int fallocates = 0;
  /// Fchown, Fchmod and Futimens calls so far (each changes an inode's ctime).
  int attribute_changes = 0;
  /// Opens with O_DIRECT succeed (as plain opens of the same file).
  bool offer_direct = false;

  void AddDirectory(const std::string& path) { nodes[path] = Make('d', 0755); }
  void AddFile(const std::string& path, std::string data = "") {
    nodes[path] = Make('f', 0644);
    nodes[path]->data = std::move(data);
  }
  void AddLink(const std::string& path, const std::string& target) {
    nodes[path] = Make('l', 0777);
    nodes[path]->link = target;
  }
  bool Has(const std::string& path) const { return nodes.count(path) != 0; }
  const Node& At(const std::string& path) const { return *nodes.at(path); }
  /// Logged calls that change something and mention `text`.
  int Changes(const std::string& text) const {
    int n = 0;
    for (const auto& c : log) n += c.find(text) != std::string::npos ? 1 : 0;
    return n;
  }

  int Stat(const std::string& path, struct stat* st) override {
    auto it = nodes.find(path);
    if (it != nodes.end() && it->second->type == 'l') it = nodes.find(it->second->link);
    return Describe(it, st);
  }
  int Lstat(const std::string& path, struct stat* st) override {
    return Describe(nodes.find(path), st);
  }
  int Access(const std::string& path) override { return Has(path) ? 0 : Err(ENOENT); }
  int Mkdir(const std::string& path, mode_t mode) override {
    if (int rc = CanCreate(path); rc != 0) return rc;
    log.push_back("mkdir " + path);
    nodes[path] = Make('d', mode);
    return 0;
  }
  int Symlink(const std::string& target, const std::string& path) override {
    if (int rc = CanCreate(path); rc != 0) return rc;
    log.push_back("symlink " + path);
    AddLink(path, target);
    return 0;
  }
  ssize_t Readlink(const std::string& path, char* buf, std::size_t size) override {
    auto it = nodes.find(path);
    if (it == nodes.end()) return Err(ENOENT);
    if (it->second->type != 'l') return Err(EINVAL);
    std::size_t n = std::min(size, it->second->link.size());
    std::memcpy(buf, it->second->link.data(), n);
    return static_cast<ssize_t>(n);
  }
  int Unlink(const std::string& path) override {
    auto it = nodes.find(path);
    if (it == nodes.end()) return Err(ENOENT);
    if (it->second->type == 'd') return Err(EISDIR);
    log.push_back("unlink " + path);
    nodes.erase(it);
    return 0;
  }
  int Rename(const std::string& from, const std::string& to, bool no_replace) override {
    auto it = nodes.find(from);
    if (it == nodes.end()) return Err(ENOENT);
    if (no_replace && Has(to)) return Err(EEXIST);
    log.push_back("rename " + from + " " + to);
    nodes[to] = it->second;
    nodes.erase(from);
    return 0;
  }
  int Link(int, const std::string&, const std::string&) override { return Err(EPERM); }
  int Lchown(const std::string&, uid_t, gid_t) override { return 0; }
  int Chown(const std::string&, uid_t, gid_t) override { return 0; }
  int Chmod(const std::string& path, mode_t mode) override {
    if (!Has(path)) return Err(ENOENT);
    nodes[path]->mode = mode;
    return 0;
  }
  int Utimens(const std::string&, const timespec*) override { return 0; }

  int Open(const std::string& path, int flags, mode_t mode) override {
    // Nameless files are not offered, and O_DIRECT only if asked: SinkFiles
    // falls back as on a file system without them.
    if ((flags & O_TMPFILE) == O_TMPFILE) return Err(EOPNOTSUPP);
    if ((flags & O_DIRECT) != 0 && !offer_direct) return Err(EINVAL);
    auto it = nodes.find(path);
    if (it == nodes.end()) {
      if ((flags & O_CREAT) == 0) return Err(ENOENT);
      if (int rc = CanCreate(path); rc != 0) return rc;
      log.push_back("create " + path);
      it = nodes.emplace(path, Make('f', mode)).first;
    } else if (it->second->type == 'l' && (flags & O_NOFOLLOW) != 0) {
      return Err(ELOOP);
    } else if ((flags & O_TRUNC) != 0) {
      it->second->data.clear();
    }
    int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    open_files[fd] = it->second;
    return fd;
  }
  int Fstat(int fd, struct stat* st) override {
    *st = {};
    const std::shared_ptr<Node>& n = open_files.at(fd);
    st->st_size = static_cast<off_t>(n->data.size());
    st->st_ino = InodeOf(*n);
    st->st_mode = (n->type == 'd' ? S_IFDIR : n->type == 'l' ? S_IFLNK : S_IFREG) | n->mode;
    st->st_mtim = n->mtime;
    return 0;
  }
  /// Another process holds `path`'s lock (for the partial-file lock's tests).
  void LockElsewhere(const std::string& path) { held_elsewhere.insert(nodes.at(path).get()); }
  int Flock(int fd, int) override {
    if (held_elsewhere.count(open_files.at(fd).get()) != 0) return Err(EWOULDBLOCK);
    return 0;
  }
  int Ftruncate(int fd, off_t size) override {
    open_files.at(fd)->data.resize(static_cast<std::size_t>(size));
    return 0;
  }
  int Fstatfs(int, struct statfs* st) override {
    *st = {};
    return 0;
  }
  int Fallocate(int, off_t) override {
    ++fallocates;
    return 0;
  }
  ssize_t Pwrite(int fd, const void* data, std::size_t length, off_t offset) override {
    // Before anything of the fake is touched, so a test may hold a write here
    // while another thread goes on.
    if (before_pwrite) before_pwrite();
    std::string& bytes = open_files.at(fd)->data;
    auto at = static_cast<std::size_t>(offset);
    if (bytes.size() < at + length) bytes.resize(at + length, '\0');
    std::memcpy(bytes.data() + at, data, length);
    return static_cast<ssize_t>(length);
  }
  /// No holes: all data up to the end.
  off_t Lseek(int fd, off_t offset, int whence) override {
    auto size = static_cast<off_t>(open_files.at(fd)->data.size());
    if (offset >= size) {
      errno = ENXIO;
      return -1;
    }
    return whence == SEEK_HOLE ? size : offset;
  }
  int PunchHole(int fd, off_t offset, off_t length) override {
    std::string& bytes = open_files.at(fd)->data;
    auto at = static_cast<std::size_t>(offset);
    auto end = std::min(bytes.size(), at + static_cast<std::size_t>(length));
    if (at < end)
      std::fill(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                bytes.begin() + static_cast<std::ptrdiff_t>(end), '\0');
    log.push_back("punch " + std::to_string(offset) + " " + std::to_string(length));
    return 0;
  }
  ssize_t CopyRange(int in_fd, int out_fd, off_t offset, std::size_t length) override {
    const std::string& from = open_files.at(in_fd)->data;
    auto at = static_cast<std::size_t>(offset);
    if (at >= from.size()) return 0;
    std::size_t n = std::min(length, from.size() - at);
    std::string piece = from.substr(at, n);
    log.push_back("copy " + std::to_string(n));
    return Pwrite(out_fd, piece.data(), n, offset);
  }
  void StartWriteback(int, off_t, std::size_t) override {}
  int Fdatasync(int) override { return 0; }
  int Fsync(int) override { return 0; }
  int Syncfs(int) override { return 0; }
  int Fchown(int, uid_t, gid_t) override {
    ++attribute_changes;
    return 0;
  }
  int Fchmod(int fd, mode_t mode) override {
    ++attribute_changes;
    open_files.at(fd)->mode = mode;
    return 0;
  }
  int Futimens(int fd, const timespec times[2]) override {
    ++attribute_changes;
    open_files.at(fd)->mtime = times[1];
    return 0;
  }
  bool IsRoot() override { return false; }

  std::map<std::string, std::shared_ptr<Node>> nodes;
  std::map<int, std::shared_ptr<Node>> open_files;
  std::vector<std::string> log;
  std::set<const Node*> held_elsewhere;

 private:
  static ino_t InodeOf(const Node& n) {
    return static_cast<ino_t>(reinterpret_cast<std::uintptr_t>(&n));
  }
  static int Err(int err) {
    errno = err;
    return -1;
  }
  static std::shared_ptr<Node> Make(char type, mode_t mode) {
    auto n = std::make_shared<Node>();
    n->type = type;
    n->mode = mode;
    return n;
  }
  int Describe(std::map<std::string, std::shared_ptr<Node>>::const_iterator it,
               struct stat* st) const {
    if (it == nodes.end()) return Err(ENOENT);
    *st = {};
    const Node& n = *it->second;
    st->st_mode = (n.type == 'd' ? S_IFDIR : n.type == 'l' ? S_IFLNK : S_IFREG) | n.mode;
    st->st_size = static_cast<off_t>(n.data.size());
    st->st_ino = InodeOf(n);
    return 0;
  }
  /// A new name needs a directory as its parent (not a link to one: the sink
  /// must never create through a link) and no entry of its own.
  int CanCreate(const std::string& path) const {
    std::string parent = path.substr(0, path.find_last_of('/'));
    auto it = nodes.find(parent);
    if (it == nodes.end()) return Err(ENOENT);
    if (it->second->type != 'd') return Err(ENOTDIR);
    return Has(path) ? Err(EEXIST) : 0;
  }
};

}  // namespace braid::testing
