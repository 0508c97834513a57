#include "session/descriptor_limit.h"

#include <sys/resource.h>

#include <algorithm>

namespace braid {
namespace {

constexpr rlim_t kMostAsked = rlim_t{1} << 20;
/// Descriptors kept for what is not a file of the copy: stdio, the control
/// channel, the listener, the journals' and directories' descriptors, -N's pipes.
constexpr std::uint64_t kReserved = 128;

}  // namespace

std::uint64_t RaiseDescriptorLimit() {
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  const rlim_t want =
      lim.rlim_max == RLIM_INFINITY ? kMostAsked : std::min(lim.rlim_max, kMostAsked);
  if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= want) return DescriptorLimit();
  lim.rlim_cur = want;
  (void)::setrlimit(RLIMIT_NOFILE, &lim);
  return DescriptorLimit();
}

std::uint64_t DescriptorLimit() {
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return 1024;  // Linux's usual soft limit
  return lim.rlim_cur == RLIM_INFINITY ? kMostAsked : lim.rlim_cur;
}

std::size_t FilesOpenWithin(std::uint64_t limit, std::size_t streams) {
  const std::uint64_t kept = kReserved + 2 * std::uint64_t{streams};
  const std::uint64_t left = limit > kept ? limit - kept : 0;
  return static_cast<std::size_t>(std::max<std::uint64_t>(left, kMinFilesOpen));
}

}  // namespace braid
