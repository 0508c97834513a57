#include "agent/fanout/hop_choice.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace braid {
namespace {

/// source -> 1 -> 2 -> 3
const std::vector<int> kChain = {-1, 0, 1, 2};

/// The nodes named have finished; every other runs (or is still starting).
std::function<bool(int)> Finished(std::set<int> nodes) {
  return [nodes](int node) { return nodes.count(node) > 0; };
}

TEST(HopChoiceTest, FollowsItsParentWhileItsCopyRuns) {
  EXPECT_EQ(NodeToFollow(kChain, 3, Finished({})), 2) << "even before its feed is up";
  EXPECT_EQ(NodeToFollow(kChain, 1, Finished({})), 0) << "the first hop reads the sources";
}

TEST(HopChoiceTest, BypassesWhatFinishedUpToTheSources) {
  EXPECT_EQ(NodeToFollow(kChain, 3, Finished({2})), 1);
  EXPECT_EQ(NodeToFollow(kChain, 3, Finished({1})), 2) << "only the nodes above count";
  EXPECT_EQ(NodeToFollow(kChain, 3, Finished({1, 2})), 0);
}

TEST(HopChoiceTest, ATreeLooksOnlyAtItsOwnBranch) {
  // source -> 1 -> 2, source -> 3 -> 4
  const std::vector<int> tree = {-1, 0, 1, 0, 3};
  EXPECT_EQ(NodeToFollow(tree, 4, Finished({3})), 0);
  EXPECT_EQ(NodeToFollow(tree, 2, Finished({3})), 1);
}

TEST(HopChoiceTest, AParentListWithALoopEndsAtTheSources) {
  const std::vector<int> loop = {-1, 2, 1};  // no such layout is made; still bounded
  EXPECT_EQ(NodeToFollow(loop, 1, Finished({1, 2})), 0);
}

}  // namespace
}  // namespace braid
