#include "support/fanout_support.h"

#include <filesystem>
#include <stdexcept>

#include <gtest/gtest.h>
#include <signal.h>

#include "support/journal_probe.h"
#include "support/process_runner.h"
#include "support/test_files.h"

namespace braid::testing {

const JsonValue& DestinationIn(const JsonValue& json, const std::string& d) {
  for (const JsonValue& leg : json["destinations"].array) {
    if (leg["destination"].string == d) return leg;
  }
  throw std::runtime_error("no destination " + d + " in the report");
}

std::optional<pid_t> ChildWithOpen(pid_t parent, const std::string& path) {
  const std::string want = std::filesystem::weakly_canonical(path).string();
  for (pid_t child : ChildrenOf(parent)) {
    std::error_code ec;
    const std::string fds = "/proc/" + std::to_string(child) + "/fd";
    for (const auto& fd : std::filesystem::directory_iterator(fds, ec)) {
      std::error_code link_ec;
      if (std::filesystem::read_symlink(fd.path(), link_ec).string() == want) return child;
    }
  }
  return std::nullopt;
}

FileAndTree MakeFileAndTree(const std::string& dir) {
  constexpr std::uint64_t kMiB = 1u << 20;
  FileAndTree made;
  made.file = dir + "/one.bin";
  WritePatternFile(made.file, 9 * kMiB + 123, 7);
  made.tree =
      MakeTree(dir + "/tree", {TreeFile("a.bin", 3 * kMiB + 5), TreeFile("sub/b.bin", 70000),
                               TreeFile("sub/deeper/c.bin", 0)});
  made.bytes = 9 * kMiB + 123 + 3 * kMiB + 5 + 70000;
  for (const char* name : {"r1", "r2", "l3"}) {
    std::filesystem::create_directory(dir + "/" + name);
    made.destinations.push_back(dir + "/" + name);
  }
  return made;
}

void SignalSinkOnceJournaled(const BackgroundBraid& copy, const std::string& target,
                             std::uint64_t bytes, const std::string& open, int signal,
                             pid_t* signalled) {
  ASSERT_TRUE(WaitFor([&] { return JournaledBytes(target) >= bytes; }, 20))
      << target << " never journaled " << bytes << " bytes: " << copy.err();
  std::optional<pid_t> sink = ChildWithOpen(copy.pid(), open);
  ASSERT_TRUE(sink.has_value()) << "no child of braid " << copy.pid() << " has " << open << " open";
  ASSERT_EQ(::kill(*sink, signal), 0);
  if (signalled != nullptr) *signalled = *sink;
}

}  // namespace braid::testing
