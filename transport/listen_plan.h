#pragma once
/// Where the listening end of a transfer binds and which addresses it tells
/// the other end to try. Pure: the interface addresses are passed in.

#include <string>
#include <vector>

namespace braid {

struct ListenPlan {
  std::string bind;                    ///< numeric address to bind ("0.0.0.0" / "::" = all)
  std::vector<std::string> advertise;  ///< to try in this order
};

/// `requested`: --data-host (or the agent's choice for a local end): bind and
/// advertise exactly that. Otherwise the address the ssh connection arrived on
/// comes first (the one the other side most likely reaches), then this host's
/// other addresses, so a multi-homed host is reachable on any of them; a
/// loopback ssh address means a local peer, so only it is used. `family` 4 or
/// 6 keeps only that family (0: both). Throws BraidError(kDataConnect or
/// kUsage) when nothing is left to listen on.
ListenPlan PlanListen(const std::string& requested, const std::string& ssh_address,
                      const std::vector<std::string>& interfaces, int family);

/// This host's numeric addresses on interfaces that are up: no loopback, no
/// IPv6 link-local (it needs a scope the other host cannot know). No name lookups.
std::vector<std::string> InterfaceAddresses();

}  // namespace braid
