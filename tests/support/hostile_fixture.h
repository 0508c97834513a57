#pragma once
/// Shared set-up for the hostile-peer tests (tests/integration/hostile_*):
/// the test's scratch directory (SshdTest's `dir`) guarded by ScratchGuard, and the real agent run
/// against braid_fake_serve, a malicious source server reached over the test sshd.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/process_runner.h"
#include "support/scratch_guard.h"
#include "support/sshd_test.h"

namespace braid::testing {

class HostileTest : public SshdTest {
 protected:
  HostileTest() : guard_(dir) {}

  /// The real agent's arguments for copying `name` from a fake source playing
  /// `scenario` into target/ (-s 1, 64 KiB blocks, so every scenario uses one stream).
  std::vector<std::string> FakeSourceArgs(const std::string& scenario, const std::string& name,
                                          std::vector<std::string> extra = {}) {
    std::string command = std::string(BRAID_FAKE_SERVE) + " " + scenario + " " + guard_.outside();
    // braid_fake_serve sends clear frames, so its hostile headers reach the sink's checks.
    // --retry 0: a scripted peer plays one attempt, and its failure is the test's outcome.
    std::vector<std::string> args{"-s",   "1",       "-B", "64K", "--cipher",
                                  "none", "--retry", "0",  "-T",  command};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(Remote("/nonexistent/" + name));
    args.push_back(guard_.target() + "/");
    return args;
  }

  /// The real agent run with FakeSourceArgs.
  ProcessResult RunFakeSource(const std::string& scenario, const std::string& name,
                              std::vector<std::string> extra = {}, int timeout_seconds = 30) {
    return RunBraid(FakeSourceArgs(scenario, name, std::move(extra)), {}, "", timeout_seconds);
  }

  /// Nothing outside target/ changed.
  void ExpectNothingOutside() { EXPECT_EQ(guard_.Changes(), ""); }

  ScratchGuard guard_;
};

}  // namespace braid::testing
