#include "support/peak_rss.h"

#include <dirent.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <vector>

#include "support/serve_child.h"

namespace braid::testing {
namespace {

/// A whole /proc file, "" when the process is gone (libstdc++ throws when a
/// read of a vanished process's file fails with ESRCH).
std::string ReadProc(pid_t pid, const char* name) {
  try {
    std::ifstream in("/proc/" + std::to_string(pid) + "/" + name);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  } catch (const std::exception&) {
    return "";
  }
}

/// The parent pid in /proc/PID/stat (the field after the command in parentheses).
pid_t ParentOf(pid_t pid) {
  std::string stat = ReadProc(pid, "stat");
  std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(stat.substr(close + 1));
  std::string state;
  pid_t parent = -1;
  rest >> state >> parent;
  return parent;
}

/// `root` and every process under it now.
std::set<pid_t> Tree(pid_t root) {
  std::map<pid_t, pid_t> parent;
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      char* end = nullptr;
      long pid = std::strtol(e->d_name, &end, 10);
      if (*end == '\0' && pid > 0)
        parent[static_cast<pid_t>(pid)] = ParentOf(static_cast<pid_t>(pid));
    }
    ::closedir(d);
  }
  std::set<pid_t> tree{root};
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [pid, ppid] : parent) {
      if (tree.count(ppid) > 0 && tree.insert(pid).second) grew = true;
    }
  }
  return tree;
}

std::string CommandOf(pid_t pid) {
  std::string cmd = ReadProc(pid, "cmdline");
  for (char& c : cmd) c = c == '\0' ? ' ' : c;
  return cmd;
}

}  // namespace

PeakRssSampler::PeakRssSampler(pid_t root) : root_(root) {
  thread_ = std::thread([this] {
    while (!stop_.load()) {
      SampleOnce();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
}

PeakRssSampler::~PeakRssSampler() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void PeakRssSampler::SampleOnce() {
  for (pid_t pid : Tree(root_)) {
    long kib = 0;
    try {
      kib = PeakResidentKib(pid);
    } catch (const std::exception&) {
      continue;  // gone between the listing and the read
    }
    if (kib <= 0) continue;
    std::string command = CommandOf(pid);
    MutexLock lock(mu_);
    PeakOf& p = peaks_[pid];
    if (kib > p.kib) p.kib = kib;
    if (!command.empty()) p.command = command;
  }
}

std::map<pid_t, PeakOf> PeakRssSampler::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  SampleOnce();
  MutexLock lock(mu_);
  return peaks_;
}

long PeakRssSampler::PeakKib(const std::map<pid_t, PeakOf>& peaks, const std::string& what) {
  long most = 0;
  for (const auto& [pid, p] : peaks) {
    if (p.command.find(what) != std::string::npos && p.kib > most) most = p.kib;
  }
  return most;
}

std::string PeakRssSampler::Describe(const std::map<pid_t, PeakOf>& peaks) {
  std::string out;
  for (const auto& [pid, p] : peaks) {
    out += std::to_string(pid) + "  " + std::to_string(p.kib / 1024) + " MiB  " +
           p.command.substr(0, 100) + "\n";
  }
  return out;
}

}  // namespace braid::testing
