// The ssh config keywords beyond Host/HostName/User/Port/IdentityFile:
// known_hosts files, StrictHostKeyChecking, IdentitiesOnly, ConnectTimeout,
// ProxyJump/ProxyCommand, Match and Include (with a fake file reader).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "braid/error.h"
#include "security/ssh/ssh_config.h"

namespace braid {
namespace {

using Files = std::vector<std::string>;
using Strict = StrictHostKeyChecking;

SshHostConfig Resolve(std::string_view text, std::string_view host) {
  return ResolveSshConfig(text, host, "/home/me");
}

/// The kUsage message ResolveSshConfig throws for `text`, or "" if none.
std::string UsageError(std::string_view text, std::string_view host = "dtn") {
  try {
    Resolve(text, host);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    return e.what();
  }
  return "";
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SshConfigKeywordsTest, UserKnownHostsFileListWithTildeAndTokens) {
  const SshHostConfig c = Resolve(
      "Host dtn\n  HostName 10.0.0.5\n  Port 2022\n"
      "  UserKnownHostsFile ~/.ssh/kh_%h_%p /etc/kh/%n \"/q/with space\"\n",
      "dtn");
  ASSERT_TRUE(c.user_known_hosts.has_value());
  EXPECT_EQ(*c.user_known_hosts,
            (Files{"/home/me/.ssh/kh_10.0.0.5_2022", "/etc/kh/dtn", "/q/with space"}));
  EXPECT_FALSE(c.global_known_hosts.has_value());
}

TEST(SshConfigKeywordsTest, KnownHostsFilesUnsetNoneAndFirstWins) {
  EXPECT_FALSE(Resolve("Host other\n  UserKnownHostsFile /x\n", "dtn").user_known_hosts);
  const SshHostConfig none = Resolve(
      "Host dtn\n  UserKnownHostsFile none\n  GlobalKnownHostsFile none\n"
      "Host *\n  UserKnownHostsFile /later\n",
      "dtn");
  ASSERT_TRUE(none.user_known_hosts && none.global_known_hosts);
  EXPECT_TRUE(none.user_known_hosts->empty());
  EXPECT_TRUE(none.global_known_hosts->empty());
  const SshHostConfig first =
      Resolve("Host *\n  GlobalKnownHostsFile /g1 /g2\n  GlobalKnownHostsFile /g3\n", "dtn");
  EXPECT_EQ(first.global_known_hosts.value_or(Files{}), (Files{"/g1", "/g2"}));
}

TEST(SshConfigKeywordsTest, StrictHostKeyCheckingValues) {
  const std::vector<std::pair<std::string, Strict>> cases{
      {"yes", Strict::kYes}, {"true", Strict::kYes},
      {"ask", Strict::kAsk}, {"no", Strict::kNo},
      {"off", Strict::kNo},  {"false", Strict::kNo},
      {"NO", Strict::kNo},   {"accept-new", Strict::kAcceptNew}};
  for (const auto& [text, want] : cases) {
    EXPECT_EQ(Resolve("StrictHostKeyChecking " + text + "\n", "dtn").strict_host_key_checking, want)
        << text;
  }
  EXPECT_EQ(Resolve("Host x\n StrictHostKeyChecking no\n", "dtn").strict_host_key_checking,
            Strict::kUnset);
  const std::string msg = UsageError("Host dtn\n  StrictHostKeyChecking maybe\n");
  EXPECT_TRUE(Has(msg, "line 2") && Has(msg, "'maybe'")) << msg;
  EXPECT_EQ(UsageError("Host other\n  StrictHostKeyChecking maybe\n"), "");
}

TEST(SshConfigKeywordsTest, IdentitiesOnly) {
  EXPECT_TRUE(Resolve("Host dtn\n  IdentitiesOnly yes\n", "dtn").identities_only);
  EXPECT_FALSE(Resolve("Host dtn\n  IdentitiesOnly no\nHost *\n IdentitiesOnly yes\n", "dtn")
                   .identities_only);
  EXPECT_FALSE(Resolve("", "dtn").identities_only);
  EXPECT_TRUE(Has(UsageError("IdentitiesOnly sometimes\n"), "IdentitiesOnly 'sometimes'"));
}

TEST(SshConfigKeywordsTest, ConnectTimeoutFormats) {
  const std::vector<std::pair<std::string, int>> cases{
      {"10", 10}, {"1m", 60}, {"1m30s", 90}, {"2H", 7200}, {"none", 0}, {"0", 0}, {"1d", 86400}};
  for (const auto& [text, want] : cases) {
    EXPECT_EQ(Resolve("ConnectTimeout " + text + "\n", "dtn").connect_timeout, want) << text;
  }
  EXPECT_EQ(Resolve("Host dtn\n ConnectTimeout 5\n ConnectTimeout 9\n", "dtn").connect_timeout, 5);
  for (const char* bad : {"x", "-1", "5x", "1.5", "86401", "2d", "99999999999999", "m"}) {
    const std::string msg = UsageError(std::string("Host dtn\n  ConnectTimeout ") + bad + "\n");
    EXPECT_TRUE(Has(msg, "ConnectTimeout") && Has(msg, "line 2")) << bad << ": " << msg;
  }
}

TEST(SshConfigKeywordsTest, ProxyKeywordsAreReported) {
  EXPECT_EQ(Resolve("Host dtn\n  ProxyJump bastion\n", "dtn").proxy_keyword, "ProxyJump");
  EXPECT_EQ(Resolve("Host dtn\n  ProxyCommand ssh -W %h:%p gw\n", "dtn").proxy_keyword,
            "ProxyCommand");
  // The first of the two wins, and `none` switches both off.
  EXPECT_EQ(Resolve("Host dtn\n ProxyCommand none\nHost *\n ProxyJump gw\n", "dtn").proxy_keyword,
            "");
  EXPECT_EQ(Resolve("Host other\n  ProxyJump gw\n", "dtn").proxy_keyword, "");
}

TEST(SshConfigKeywordsTest, MatchHostPatternList) {
  const char* text = "Match host dtn,*.example.org,!bad.example.org\n  User m\n";
  EXPECT_EQ(Resolve(text, "dtn").user, "m");
  EXPECT_EQ(Resolve(text, "a.example.org").user, "m");
  EXPECT_EQ(Resolve(text, "bad.example.org").user, "");
  EXPECT_EQ(Resolve(text, "other").user, "");
}

TEST(SshConfigKeywordsTest, MatchHostSeesTheHostNameOnceSet) {
  const char* text =
      "Host dtn\n  HostName 10.1.2.3\n"
      "Match host 10.1.*\n  User by-address\n"
      "Match originalhost dtn\n  Port 2022\n";
  const SshHostConfig c = Resolve(text, "dtn");
  EXPECT_EQ(c.user, "by-address");
  EXPECT_EQ(c.port, 2022);
  EXPECT_EQ(Resolve(text, "10.1.9.9").user, "by-address");
}

TEST(SshConfigKeywordsTest, MatchWithOtherCriteriaDoesNotMatch) {
  for (const char* line :
       {"Match host dtn user me", "Match exec true", "Match !host other", "Match host",
        "Match canonical host dtn", "Match all host dtn", "Match localuser me", "Match final"}) {
    EXPECT_EQ(Resolve(std::string(line) + "\n  User m\n", "dtn").user, "") << line;
  }
  EXPECT_EQ(Resolve("Match host dtn originalhost dtn\n  User both\n", "dtn").user, "both");
  EXPECT_EQ(Resolve("Match host dtn originalhost x\n  User both\n", "dtn").user, "");
}

/// An Include reader over an in-memory tree: exact names, or a trailing `*`.
class FakeIncludes {
 public:
  std::map<std::string, std::string> files;
  std::vector<std::string> asked;

  SshIncludeReader Reader() {
    return [this](const std::string& pattern) {
      asked.push_back(pattern);
      std::vector<IncludedSshConfig> out;
      for (const auto& [name, text] : files) {
        const bool star = !pattern.empty() && pattern.back() == '*';
        const std::string stem = star ? pattern.substr(0, pattern.size() - 1) : pattern;
        if (star ? name.rfind(stem, 0) == 0 : name == pattern) out.push_back({name, text});
      }
      return out;
    };
  }

  SshHostConfig Resolve(std::string_view user_text, std::string_view host,
                        std::string_view system_text = "") {
    const SshConfigContext context{"/home/me", "me", Reader()};
    return ResolveSshConfig(
        {{"/home/me/.ssh/config", user_text, false}, {"/etc/ssh/ssh_config", system_text, true}},
        host, context);
  }
};

TEST(SshConfigIncludeTest, RelativeToDotSshAndToEtcSsh) {
  FakeIncludes fs;
  fs.files["/home/me/.ssh/config.d/a"] = "Host dtn\n  User from-a\n";
  fs.files["/home/me/.ssh/config.d/b"] = "Host dtn\n  User from-b\n  Port 2200\n";
  fs.files["/etc/ssh/ssh_config.d/sys"] = "Host dtn\n  HostName 10.9.9.9\n";
  const SshHostConfig c = fs.Resolve("Include config.d/*\n", "dtn", "Include ssh_config.d/*\n");
  EXPECT_EQ(c.user, "from-a");
  EXPECT_EQ(c.port, 2200);
  EXPECT_EQ(c.hostname, "10.9.9.9");
  EXPECT_EQ(fs.asked, (Files{"/home/me/.ssh/config.d/*", "/etc/ssh/ssh_config.d/*"}));
}

TEST(SshConfigIncludeTest, TildeAbsoluteAndSeveralNames) {
  FakeIncludes fs;
  fs.files["/home/me/extra"] = "User u\n";
  fs.files["/opt/cfg"] = "Port 2\n";
  const SshHostConfig c = fs.Resolve("Include ~/extra /opt/cfg /none/such\n", "dtn");
  EXPECT_EQ(c.user, "u");
  EXPECT_EQ(c.port, 2);
}

TEST(SshConfigIncludeTest, OnlyInsideABlockThatApplies) {
  FakeIncludes fs;
  fs.files["/home/me/.ssh/inc"] = "User included\n";
  EXPECT_EQ(fs.Resolve("Host other\n  Include inc\n", "dtn").user, "");
  EXPECT_TRUE(fs.asked.empty());
  EXPECT_EQ(fs.Resolve("Host dtn\n  Include inc\n", "dtn").user, "included");
}

TEST(SshConfigIncludeTest, IncludedHostLinesDoNotLeakOut) {
  FakeIncludes fs;
  fs.files["/home/me/.ssh/inc"] = "Host other\n  User wrong\n";
  // After the Include, the including block (Host dtn) still applies.
  EXPECT_EQ(fs.Resolve("Host dtn\n  Include inc\n  User right\n", "dtn").user, "right");
}

TEST(SshConfigIncludeTest, LoopIsAnErrorNamingTheFile) {
  FakeIncludes fs;
  fs.files["/home/me/.ssh/loop"] = "Include loop\n";
  try {
    fs.Resolve("Include loop\n", "dtn");
    FAIL() << "expected BraidError";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_TRUE(Has(e.what(), "/home/me/.ssh/loop") && Has(e.what(), "16")) << e.what();
  }
}

TEST(SshConfigIncludeTest, DoublingLoopStopsAtTheFileBudget) {
  FakeIncludes fs;
  fs.files["/home/me/.ssh/twice"] = "Include twice twice\n";
  try {
    fs.Resolve("Include twice\n", "dtn");
    FAIL() << "expected BraidError";
  } catch (const BraidError& e) {
    EXPECT_TRUE(Has(e.what(), "Include")) << e.what();
  }
  EXPECT_LT(fs.asked.size(), 600u);
}

TEST(SshConfigIncludeTest, BadIncludeLinesAreErrors) {
  FakeIncludes fs;
  for (const char* bad : {"Include\n", "Include \"unterminated\n"}) {
    try {
      fs.Resolve(bad, "dtn");
      ADD_FAILURE() << bad;
    } catch (const BraidError& e) {
      EXPECT_TRUE(Has(e.what(), "line 1")) << e.what();
    }
  }
}

TEST(SshConfigIncludeTest, RealGlobReadsMatchingFilesInOrder) {
  char tmpl[] = "/tmp/braid-sshinc-XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::filesystem::create_directories(dir + "/.ssh/conf.d");
  std::ofstream(dir + "/.ssh/config") << "Include conf.d/*.conf\n";
  std::ofstream(dir + "/.ssh/conf.d/20-b.conf") << "Host dtn\n  User from-b\n  Port 2020\n";
  std::ofstream(dir + "/.ssh/conf.d/10-a.conf") << "Host dtn\n  User from-a\n";
  std::ofstream(dir + "/.ssh/conf.d/30-c.txt") << "Host dtn\n  HostName ignored\n";
  const SshHostConfig c = LoadSshHostConfig("dtn", SshConfigContext{dir, "me", nullptr});
  EXPECT_EQ(c.user, "from-a");
  EXPECT_EQ(c.port, 2020);
  EXPECT_NE(c.hostname, "ignored");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace braid
