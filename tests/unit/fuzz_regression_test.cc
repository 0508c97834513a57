// Inputs the fuzz targets (fuzz/, tools/fuzz.sh) found, kept as unit tests so
// a fixed bug stays fixed in the normal build, which has no libFuzzer.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "parse_args.h"
#include "security/ssh/ssh_config.h"
#include "thrown_code.h"

namespace braid {
namespace {

// ssh_config_fuzzer: a '*' in the pattern was matched as a literal character
// when the host had a '*' at that place, so "Host *" missed the alias "*d?n"
// and its settings were silently not applied.
TEST(FuzzRegressionTest, StarMatchesEvenWhereTheHostHasAStar) {
  EXPECT_TRUE(MatchSshPattern("*", "*d?n"));
  EXPECT_TRUE(MatchSshPattern("a*", "a*b"));
  EXPECT_TRUE(MatchSshPattern("*b", "**b"));
  EXPECT_FALSE(MatchSshPattern("*c", "*b"));
  const SshHostConfig c = ResolveSshConfig("Host *\n  User alice\n", "*d?n", "/home/u");
  EXPECT_EQ(c.user, "alice");
}

// ssh_config_fuzzer: an IdentityFile that expands to nothing ("%h" for an empty
// alias) was kept as an empty path, which the key loader would then try to open.
TEST(FuzzRegressionTest, IdentityFileThatExpandsToNothingIsDropped) {
  const SshHostConfig c = ResolveSshConfig("Host *\n  IdentityFile %h\n", "", "/home/u");
  EXPECT_TRUE(c.identity_files.empty());
  const SshHostConfig d = ResolveSshConfig("Host *\n  IdentityFile %h\n", "dtn", "/home/u");
  ASSERT_EQ(d.identity_files.size(), 1u);
  EXPECT_EQ(d.identity_files[0], "dtn");
}

// config_file_fuzzer: CLI11 lets std::out_of_range from std::stoll escape for
// a counted flag given a huge value, so `braid --compress=99999999999999999999`
// (or that line in the config file) aborted with "terminate called" (exit 134).
TEST(FuzzRegressionTest, HugeFlagCountIsAUsageError) {
  EXPECT_EQ(ThrownCode([] {
              ParseArgs({"--compress=99999999999999999999", "a", "b"});
            }),
            ErrorCode::kUsage);
  EXPECT_EQ(ThrownCode([] {
              ParseArgs({"--verbose=99999999999999999999", "a", "b"});
            }),
            ErrorCode::kUsage);
  const std::filesystem::path config =
      std::filesystem::temp_directory_path() / "braid-fuzz-regression.conf";
  std::ofstream(config) << "compress = 99999999999999999999\n";
  EXPECT_EQ(ThrownCode([&] { ParseArgs({"-C", config.string(), "a", "b"}); }), ErrorCode::kUsage);
  std::filesystem::remove(config);
}

}  // namespace
}  // namespace braid
