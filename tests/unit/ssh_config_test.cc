#include "security/ssh/ssh_config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "braid/error.h"

namespace braid {
namespace {

using Files = std::vector<std::string>;

SshHostConfig Resolve(std::string_view text, std::string_view host) {
  return ResolveSshConfig(text, host, "/home/me");
}

TEST(SshConfigTest, EmptyConfigSetsNothing) {
  const SshHostConfig c = Resolve("", "anything");
  EXPECT_EQ(c.hostname, "");
  EXPECT_EQ(c.user, "");
  EXPECT_EQ(c.port, 0);
  EXPECT_TRUE(c.identity_files.empty());
}

TEST(SshConfigTest, HostBlockSetsItsValues) {
  const char* text =
      "Host dtn\n"
      "  HostName dtn01.example.org\n"
      "  User alice\n"
      "  Port 2222\n"
      "  IdentityFile ~/.ssh/dtn_key\n";
  const SshHostConfig c = Resolve(text, "dtn");
  EXPECT_EQ(c.hostname, "dtn01.example.org");
  EXPECT_EQ(c.user, "alice");
  EXPECT_EQ(c.port, 2222);
  EXPECT_EQ(c.identity_files, Files{"/home/me/.ssh/dtn_key"});
  EXPECT_EQ(Resolve(text, "other").hostname, "");
  EXPECT_EQ(Resolve(text, "dtn2").hostname, "");
}

TEST(SshConfigTest, SeveralPatternsOnOneHostLine) {
  const char* text = "Host alpha beta\tgamma\n  User u\n";
  EXPECT_EQ(Resolve(text, "alpha").user, "u");
  EXPECT_EQ(Resolve(text, "beta").user, "u");
  EXPECT_EQ(Resolve(text, "gamma").user, "u");
  EXPECT_EQ(Resolve(text, "delta").user, "");
}

TEST(SshConfigTest, Wildcards) {
  const char* text =
      "Host *.example.org\n  User star\n"
      "Host node?\n  User question\n";
  EXPECT_EQ(Resolve(text, "a.example.org").user, "star");
  EXPECT_EQ(Resolve(text, "example.org").user, "");
  EXPECT_EQ(Resolve(text, "node1").user, "question");
  EXPECT_EQ(Resolve(text, "node12").user, "");
  EXPECT_EQ(Resolve(text, "node").user, "");
}

TEST(SshConfigTest, HostMatchingIgnoresCase) {
  EXPECT_EQ(Resolve("Host DTN.Example.ORG\n User u\n", "dtn.example.org").user, "u");
  EXPECT_EQ(Resolve("Host dtn\n User u\n", "DTN").user, "u");
}

TEST(SshConfigTest, NegationExcludesAHost) {
  const char* text = "Host *.example.org !secret.example.org\n  User u\n";
  EXPECT_EQ(Resolve(text, "a.example.org").user, "u");
  EXPECT_EQ(Resolve(text, "secret.example.org").user, "");
}

TEST(SshConfigTest, NegationAloneNeverMatches) {
  EXPECT_EQ(Resolve("Host !foo\n  User u\n", "bar").user, "");
  EXPECT_EQ(Resolve("Host !foo\n  User u\n", "foo").user, "");
}

TEST(SshConfigTest, FirstObtainedValueWins) {
  const char* text =
      "Host dtn\n  User first\n  Port 1000\n  User second\n"
      "Host *\n  User fallback\n  Port 22\n  HostName default.example.org\n";
  const SshHostConfig c = Resolve(text, "dtn");
  EXPECT_EQ(c.user, "first");
  EXPECT_EQ(c.port, 1000);
  EXPECT_EQ(c.hostname, "default.example.org");
  EXPECT_EQ(Resolve(text, "other").user, "fallback");
}

TEST(SshConfigTest, LinesBeforeAnyHostApplyToAll) {
  const char* text = "User global\nHost dtn\n  User specific\n";
  EXPECT_EQ(Resolve(text, "dtn").user, "global");
  EXPECT_EQ(Resolve(text, "x").user, "global");
}

TEST(SshConfigTest, IdentityFileAccumulatesAcrossBlocks) {
  const char* text =
      "Host dtn\n  IdentityFile ~/.ssh/a\n  IdentityFile /keys/b\n"
      "Host *\n  IdentityFile ~/.ssh/c\n";
  EXPECT_EQ(Resolve(text, "dtn").identity_files,
            (Files{"/home/me/.ssh/a", "/keys/b", "/home/me/.ssh/c"}));
  EXPECT_EQ(Resolve(text, "x").identity_files, Files{"/home/me/.ssh/c"});
}

TEST(SshConfigTest, IdentityFileNoneIsIgnored) {
  EXPECT_TRUE(Resolve("IdentityFile none\n", "x").identity_files.empty());
}

TEST(SshConfigTest, IdentityFileTokens) {
  const char* text =
      "Host dtn\n  HostName real.example.org\n  User bob\n  Port 2200\n"
      "  IdentityFile %d/keys/%h-%r-%u-%p-100%%\n  IdentityFile ~/x/%C\n";
  const SshHostConfig c =
      ResolveSshConfig({{"cfg", text}}, "dtn", SshConfigContext{"/home/me", "me"});
  EXPECT_EQ(c.identity_files,
            (Files{"/home/me/keys/real.example.org-bob-me-2200-100%", "/home/me/x/%C"}));
}

TEST(SshConfigTest, TokensWithoutHostNameUserOrPortUseDefaults) {
  const SshHostConfig c = ResolveSshConfig({{"cfg", "IdentityFile /k/%h-%r-%p\n"}}, "dtn",
                                           SshConfigContext{"/home/me", "me"});
  EXPECT_EQ(c.identity_files, Files{"/k/dtn-me-22"});
}

TEST(SshConfigTest, UnknownLocalUserLeavesTokenLiteral) {
  const SshHostConfig c = Resolve("IdentityFile /k/%u\n", "dtn");
  EXPECT_EQ(c.identity_files, Files{"/k/%u"});
}

TEST(SshConfigTest, HostNameExpandsPercentH) {
  EXPECT_EQ(Resolve("Host *\n  HostName %h.example.org\n", "dtn").hostname, "dtn.example.org");
}

TEST(SshConfigTest, EqualsFormAndKeywordCase) {
  const char* text =
      "HOST=dtn\n"
      "  hostname=real\n"
      "  USER = carol\n"
      "  pOrT= 2022\n"
      "  identityfile  =~/k\n";
  const SshHostConfig c = Resolve(text, "dtn");
  EXPECT_EQ(c.hostname, "real");
  EXPECT_EQ(c.user, "carol");
  EXPECT_EQ(c.port, 2022);
  EXPECT_EQ(c.identity_files, Files{"/home/me/k"});
}

TEST(SshConfigTest, QuotedValuesKeepSpaces) {
  const char* text =
      "Host \"dtn\"\n"
      "  IdentityFile \"~/my keys/id one\"\n"
      "  User 'dave'\n";
  const SshHostConfig c = Resolve(text, "dtn");
  EXPECT_EQ(c.identity_files, Files{"/home/me/my keys/id one"});
  EXPECT_EQ(c.user, "dave");
}

TEST(SshConfigTest, CommentsBlankLinesAndCrlf) {
  const char* text =
      "# a comment\r\n"
      "\r\n"
      "   \t\n"
      "Host dtn # trailing comment\r\n"
      "  # indented comment\n"
      "  User erin   # why erin\r\n"
      "  Port 2201\r\n";
  const SshHostConfig c = Resolve(text, "dtn");
  EXPECT_EQ(c.user, "erin");
  EXPECT_EQ(c.port, 2201);
}

TEST(SshConfigTest, UnknownKeywordsAreIgnored) {
  const char* text =
      "Host dtn\n  ForwardAgent yes\n  Ciphers aes128-ctr\n  SomethingNew 1 2 3\n  User u\n";
  EXPECT_EQ(Resolve(text, "dtn").user, "u");
}

TEST(SshConfigTest, MatchBlocksAreSkipped) {
  const char* text =
      "Match host dtn exec \"true\"\n  User from-match\n"
      "Host dtn\n  Port 2\n  User from-host\n";
  const SshHostConfig c = Resolve(text, "dtn");
  EXPECT_EQ(c.user, "from-host");
  EXPECT_EQ(c.port, 2);
}

TEST(SshConfigTest, MatchAllApplies) {
  EXPECT_EQ(Resolve("Host other\n  User o\nMatch all\n  User everyone\n", "dtn").user, "everyone");
}

TEST(SshConfigTest, BadPortInApplyingBlockIsAnErrorNamingTheLine) {
  const char* text = "Host dtn\n  User u\n  Port ssh\n";
  try {
    Resolve(text, "dtn");
    FAIL() << "expected BraidError";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Port"), std::string::npos) << e.what();
  }
  EXPECT_THROW(Resolve("Port 0\n", "x"), BraidError);
  EXPECT_THROW(Resolve("Port 65536\n", "x"), BraidError);
  EXPECT_THROW(Resolve("Port 22x\n", "x"), BraidError);
  EXPECT_THROW(Resolve("Port -1\n", "x"), BraidError);
}

TEST(SshConfigTest, BadValuesInOtherBlocksAreIgnored) {
  const char* text = "Host other\n  Port nope\n  User \"unterminated\nHost dtn\n  Port 7\n";
  EXPECT_EQ(Resolve(text, "dtn").port, 7);
}

TEST(SshConfigTest, UnterminatedQuoteInApplyingBlockIsAnError) {
  EXPECT_THROW(Resolve("Host dtn\n  IdentityFile \"~/x\n", "dtn"), BraidError);
}

TEST(SshConfigTest, MissingValueIsAnError) {
  EXPECT_THROW(Resolve("Host dtn\n  User\n", "dtn"), BraidError);
}

TEST(SshConfigTest, HugeLineIsRejected) {
  const std::string text = "Host dtn\n  User " + std::string(kMaxSshConfigLine + 1, 'a') + "\n";
  try {
    Resolve(text, "dtn");
    FAIL() << "expected BraidError";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
}

TEST(SshConfigTest, GarbageDoesNotCrash) {
  std::string garbage;
  unsigned state = 12345;
  for (int i = 0; i < 200000; ++i) {
    state = state * 1103515245u + 12345u;
    garbage += static_cast<char>((state >> 16) & 0xff);
  }
  // Keep the lines short enough to be parsed rather than rejected.
  for (std::size_t i = 100; i < garbage.size(); i += 100) {
    garbage[i] = '\n';
  }
  try {
    Resolve(garbage, "dtn");
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
  }
  constexpr char kNuls[] = "Host x\n\0\0\0 User \x01\x02\n";
  EXPECT_NO_THROW(Resolve(std::string(kNuls, sizeof(kNuls) - 1), "dtn"));
}

TEST(SshConfigTest, ControlCharacterInApplyingValueIsAnError) {
  EXPECT_THROW(Resolve(std::string("User a\x01z\n"), "dtn"), BraidError);
}

TEST(SshConfigTest, EarlierFileWinsOverLaterOne) {
  const SshHostConfig c =
      ResolveSshConfig({{"user", "Host dtn\n  User mine\n  IdentityFile ~/a\n"},
                        {"system", "Host *\n  User theirs\n  Port 2022\n  IdentityFile ~/b\n"}},
                       "dtn", SshConfigContext{"/h", ""});
  EXPECT_EQ(c.user, "mine");
  EXPECT_EQ(c.port, 2022);
  EXPECT_EQ(c.identity_files, (Files{"/h/a", "/h/b"}));
}

TEST(SshConfigTest, SecondFileStartsWithEveryHostActive) {
  const SshHostConfig c =
      ResolveSshConfig({{"user", "Host nothing-matches\n"}, {"system", "User everyone\n"}}, "dtn",
                       SshConfigContext{"/h", ""});
  EXPECT_EQ(c.user, "everyone");
}

TEST(SshPatternTest, Basics) {
  EXPECT_TRUE(MatchSshPattern("*", ""));
  EXPECT_TRUE(MatchSshPattern("*", "anything"));
  EXPECT_TRUE(MatchSshPattern("", ""));
  EXPECT_FALSE(MatchSshPattern("", "a"));
  EXPECT_TRUE(MatchSshPattern("a*b*c", "aXXbYYc"));
  EXPECT_TRUE(MatchSshPattern("a*b*c", "abc"));
  EXPECT_FALSE(MatchSshPattern("a*b*c", "abcd"));
  EXPECT_TRUE(MatchSshPattern("10.0.?.*", "10.0.1.25"));
  EXPECT_FALSE(MatchSshPattern("10.0.?.*", "10.0.12.25"));
  EXPECT_TRUE(MatchSshPattern("**a**", "bab"));
}

TEST(SshPatternTest, PathologicalPatternIsFast) {
  const std::string host(20000, 'a');
  EXPECT_FALSE(MatchSshPattern("*a*a*a*a*a*a*a*a*a*a*b", host));
}

class SshConfigFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/braid-sshcfg-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(SshConfigFileTest, MissingFileIsEmptyConfig) {
  EXPECT_EQ(ReadSshConfigFile(dir_ + "/nope"), "");
  EXPECT_EQ(ReadSshConfigFile(dir_ + "/nope/deeper"), "");
}

TEST_F(SshConfigFileTest, DirectoryIsAClearError) {
  try {
    ReadSshConfigFile(dir_);
    FAIL() << "expected BraidError";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find(dir_), std::string::npos) << e.what();
  }
}

TEST_F(SshConfigFileTest, LoadsUserConfigFromHome) {
  std::filesystem::create_directories(dir_ + "/.ssh");
  std::ofstream(dir_ + "/.ssh/config") << "Host dtn\n  HostName 10.1.2.3\n  Port 2022\n";
  const SshHostConfig c = LoadSshHostConfig("dtn", SshConfigContext{dir_, "me", nullptr});
  EXPECT_EQ(c.hostname, "10.1.2.3");
  EXPECT_EQ(c.port, 2022);
}

}  // namespace
}  // namespace braid
