#include "transport/listen_plan.h"

#include <gtest/gtest.h>

#include "braid/error.h"
#include "thrown_code.h"

namespace braid {
namespace {

using V = std::vector<std::string>;

TEST(ListenPlanTest, RequestedAddressIsBoundAndAdvertisedAlone) {
  ListenPlan p = PlanListen("10.9.9.9", "192.0.2.1", {"192.0.2.1", "10.9.9.9"}, 0);
  EXPECT_EQ(p.bind, "10.9.9.9");
  EXPECT_EQ(p.advertise, V{"10.9.9.9"});
  EXPECT_EQ(ThrownCode([] { PlanListen("10.9.9.9", "", {}, 6); }), ErrorCode::kUsage);
}

TEST(ListenPlanTest, LoopbackSshMeansALocalPeer) {
  ListenPlan p = PlanListen("", "127.0.0.1", {"192.0.2.1"}, 0);
  EXPECT_EQ(p.bind, "127.0.0.1");
  EXPECT_EQ(p.advertise, V{"127.0.0.1"});
}

TEST(ListenPlanTest, SshAddressFirstThenSameFamilyThenOthers) {
  ListenPlan p = PlanListen("", "192.0.2.1", {"2001:db8::1", "198.51.100.7", "192.0.2.1"}, 0);
  EXPECT_EQ(p.bind, "::");  // one socket takes both families
  EXPECT_EQ(p.advertise, (V{"192.0.2.1", "198.51.100.7", "2001:db8::1"}));
  p = PlanListen("", "192.0.2.1", {"198.51.100.7"}, 0);
  EXPECT_EQ(p.bind, "0.0.0.0");
}

TEST(ListenPlanTest, FamilyFilterAndNothingLeft) {
  ListenPlan p = PlanListen("", "192.0.2.1", {"2001:db8::1", "198.51.100.7"}, 6);
  EXPECT_EQ(p.advertise, V{"2001:db8::1"});
  EXPECT_EQ(p.bind, "::");
  EXPECT_EQ(ThrownCode([] { PlanListen("", "192.0.2.1", {"198.51.100.7"}, 6); }),
            ErrorCode::kDataConnect);
  EXPECT_EQ(ThrownCode([] { PlanListen("", "", {}, 0); }), ErrorCode::kDataConnect);
  // Loopback and junk are never advertised to another host.
  p = PlanListen("", "", {"127.0.0.1", "::1", "not-an-address", "198.51.100.7"}, 0);
  EXPECT_EQ(p.advertise, V{"198.51.100.7"});
}

TEST(ListenPlanTest, AtMostSixteenAddresses) {
  V many;
  for (int i = 1; i <= 40; ++i) many.push_back("10.0.0." + std::to_string(i));
  EXPECT_EQ(PlanListen("", "10.0.0.1", many, 0).advertise.size(), 16u);
}

}  // namespace
}  // namespace braid
