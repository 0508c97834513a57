#pragma once
/// A tmpfs mounted for one test (root only) and detached when it ends.

#include <sys/mount.h>

#include <filesystem>
#include <string>

namespace braid::testing {

class ScopedTmpfs {
 public:
  ScopedTmpfs(const std::string& path, const std::string& options) : path_(path) {
    std::filesystem::create_directories(path);
    ok_ = ::mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) == 0;
  }
  ~ScopedTmpfs() {
    if (ok_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  ScopedTmpfs(const ScopedTmpfs&) = delete;
  ScopedTmpfs& operator=(const ScopedTmpfs&) = delete;
  bool ok() const { return ok_; }
  void MakeReadOnly() { ::mount(nullptr, path_.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr); }

 private:
  std::string path_;
  bool ok_ = false;
};

}  // namespace braid::testing
