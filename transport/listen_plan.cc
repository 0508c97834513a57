#include "transport/listen_plan.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>

#include "braid/error.h"

namespace braid {
namespace {

constexpr std::size_t kMaxAdvertised = 16;  // what a SinkReady may carry

int FamilyOf(const std::string& address) {
  in6_addr v6{};
  in_addr v4{};
  if (::inet_pton(AF_INET, address.c_str(), &v4) == 1) return 4;
  if (::inet_pton(AF_INET6, address.c_str(), &v6) == 1) return 6;
  return 0;
}

bool IsLoopback(const std::string& address) {
  return address.rfind("127.", 0) == 0 || address == "::1";
}

}  // namespace

ListenPlan PlanListen(const std::string& requested, const std::string& ssh_address,
                      const std::vector<std::string>& interfaces, int family) {
  if (!requested.empty()) {
    if (family != 0 && FamilyOf(requested) != family) {
      throw BraidError(ErrorCode::kUsage, "--data-host " + requested + " is not an IPv" +
                                              std::to_string(family) + " address");
    }
    return {requested, {requested}};
  }
  if (!ssh_address.empty() && IsLoopback(ssh_address) &&
      (family == 0 || FamilyOf(ssh_address) == family)) {
    return {ssh_address, {ssh_address}};
  }
  std::vector<std::string> candidates;
  auto add = [&](const std::string& a) {
    int f = FamilyOf(a);
    if (f == 0 || (family != 0 && f != family) || IsLoopback(a)) return;
    if (std::find(candidates.begin(), candidates.end(), a) != candidates.end()) return;
    if (candidates.size() < kMaxAdvertised) candidates.push_back(a);
  };
  add(ssh_address);
  int first = candidates.empty() ? 0 : FamilyOf(candidates.front());
  // The ssh address's family first: the other side reached us that way.
  for (const auto& a : interfaces) {
    if (FamilyOf(a) == first) add(a);
  }
  for (const auto& a : interfaces) add(a);
  if (candidates.empty()) {
    throw BraidError(ErrorCode::kDataConnect,
                     family == 0 ? std::string("no address to listen on for data: SSH_CONNECTION "
                                               "is not set and no interface has an address")
                                 : "no IPv" + std::to_string(family) +
                                       " address to listen on for data on this host");
  }
  bool any_v6 = std::any_of(candidates.begin(), candidates.end(),
                            [](const std::string& a) { return FamilyOf(a) == 6; });
  // "::" takes IPv4 too (as mapped addresses) unless only IPv6 was asked for.
  return {any_v6 ? "::" : "0.0.0.0", candidates};
}

std::vector<std::string> InterfaceAddresses() {
  std::vector<std::string> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || (i->ifa_flags & IFF_UP) == 0 ||
        (i->ifa_flags & IFF_LOOPBACK) != 0) {
      continue;
    }
    char text[INET6_ADDRSTRLEN] = {};
    if (i->ifa_addr->sa_family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(i->ifa_addr);
      ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(i->ifa_addr);
      if (IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr)) continue;
      ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    } else {
      continue;
    }
    out.emplace_back(text);
  }
  ::freeifaddrs(list);
  return out;
}

}  // namespace braid
