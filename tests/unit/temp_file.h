#pragma once
/// Test helper: a file with the given text in a fresh directory under /tmp,
/// removed with its directory when the object goes.

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace braid::testing {

class TempFile {
 public:
  explicit TempFile(const std::string& text, const std::string& name = "list") {
    char tmpl[] = "/tmp/braid-unit-list.XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) dir_ = tmpl;
    path_ = dir_ + "/" + name;
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~TempFile() {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  std::string path_;
};

}  // namespace braid::testing
