#include "agent/fanout/hop_choice.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace braid {
namespace {

/// source -> 1 -> 2 -> 3
const std::vector<int> kChain = {-1, 0, 1, 2};

std::function<HopState(int)> States(std::map<int, HopState> states) {
  return [states](int node) { return states.at(node); };
}

constexpr HopState kRunning{false, true};
constexpr HopState kStarting{false, false};
constexpr HopState kFinished{true, false};

TEST(HopChoiceTest, FollowsItsParentOnceItsFeedIsUp) {
  EXPECT_EQ(NodeToFollow(kChain, 3, States({{1, kRunning}, {2, kRunning}})), 2);
  EXPECT_EQ(NodeToFollow(kChain, 3, States({{1, kRunning}, {2, kStarting}})), std::nullopt);
  EXPECT_EQ(NodeToFollow(kChain, 1, States({})), 0) << "the first hop reads the sources";
}

TEST(HopChoiceTest, BypassesWhatFinishedUpToTheSources) {
  EXPECT_EQ(NodeToFollow(kChain, 3, States({{1, kRunning}, {2, kFinished}})), 1);
  EXPECT_EQ(NodeToFollow(kChain, 3, States({{1, kStarting}, {2, kFinished}})), std::nullopt);
  EXPECT_EQ(NodeToFollow(kChain, 3, States({{1, kFinished}, {2, kFinished}})), 0);
}

TEST(HopChoiceTest, ATreeLooksOnlyAtItsOwnBranch) {
  // source -> 1 -> 2, source -> 3 -> 4
  const std::vector<int> tree = {-1, 0, 1, 0, 3};
  EXPECT_EQ(NodeToFollow(tree, 4, States({{3, kFinished}})), 0);
  EXPECT_EQ(NodeToFollow(tree, 2, States({{1, kRunning}})), 1);
}

TEST(HopChoiceTest, AParentListWithALoopEndsAtTheSources) {
  const std::vector<int> loop = {-1, 2, 1};  // no such layout is made; still bounded
  EXPECT_EQ(NodeToFollow(loop, 1, States({{1, kFinished}, {2, kFinished}})), 0);
}

}  // namespace
}  // namespace braid
