#include "support/fanout_support.h"

#include <filesystem>
#include <stdexcept>

#include "support/process_runner.h"

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

}  // namespace braid::testing
