#pragma once
/// The base of every integration test that runs braid against the private
/// sshd (SshdFixture): the fixture, this test's own scratch directory, and the
/// remote spelling of a path. Derive from it; parameterised tests add
/// ::testing::WithParamInterface<T>.
///
///   class CopyTest : public testing::SshdTest {};
///   TEST_F(CopyTest, Push) { RunBraid({src, Remote(dir + "/dst")}); }

#include <gtest/gtest.h>

#include <string>

#include "support/sshd_fixture.h"

namespace braid::testing {

class SshdTest : public ::testing::Test {
 protected:
  SshdFixture& sshd = SshdFixture::Get();
  /// Fresh and empty for each test, the same path on every call within it.
  std::string dir = sshd.scratch_dir();

  /// `path` on the sshd end: "braidtest:path".
  std::string Remote(const std::string& path) const { return sshd.alias() + ":" + path; }
};

}  // namespace braid::testing
