#include "support/scratch_guard.h"

#include <filesystem>
#include <system_error>

#include "support/test_files.h"

namespace braid::testing {
namespace fs = std::filesystem;

ScratchGuard::ScratchGuard(const std::string& root) : root_(root) {
  fs::create_directories(outside());
  fs::create_directories(target());
  fs::create_directories(root_ + "/logs");
  WriteText(outside() + "/sentinel", "do not touch\n");
  Rearm();
}

void ScratchGuard::Rearm() { before_ = Snapshot(); }

std::map<std::string, std::string> ScratchGuard::Snapshot() const {
  std::map<std::string, std::string> out;
  std::error_code ec;
  // symlinks are listed, never followed: a link pointing outside is a leaf here.
  for (auto it = fs::recursive_directory_iterator(root_, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    std::string rel = fs::relative(p, root_, ec).string();
    fs::file_status st = fs::symlink_status(p, ec);
    std::string what;
    if (fs::is_symlink(st)) {
      what = "link:" + fs::read_symlink(p, ec).string();
    } else if (fs::is_regular_file(st)) {
      what = "file:" + FileMd5(p.string());
    } else if (fs::is_directory(st)) {
      what = "dir";
    } else {
      what = "other";
    }
    out[rel] = what;
  }
  return out;
}

std::string ScratchGuard::Changes(const std::string& also_allowed) const {
  std::map<std::string, std::string> now = Snapshot();
  auto allowed = [&](const std::string& rel) {
    auto under = [&](const std::string& dir) {
      return !dir.empty() && (rel == dir || rel.rfind(dir + "/", 0) == 0);
    };
    return under("target") || under(also_allowed);
  };
  std::string out;
  for (const auto& [rel, what] : now) {
    auto it = before_.find(rel);
    if (it == before_.end()) {
      if (!allowed(rel)) out += "new: " + rel + " (" + what + ")\n";
    } else if (it->second != what && !allowed(rel)) {
      out += "changed: " + rel + "\n";
    }
  }
  for (const auto& [rel, what] : before_) {
    if (now.count(rel) == 0 && !allowed(rel)) out += "gone: " + rel + "\n";
  }
  return out;
}

}  // namespace braid::testing
