#include "cli/config_file.h"
#include "parse_args.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "cli/command_line.h"

namespace braid {
namespace {

/// The message of the kUsage error `fn` throws; fails the test otherwise.
template <typename Fn>
std::string UsageMessage(Fn fn) {
  try {
    fn();
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// ------------------------------------------------------------------ the parser

TEST(ConfigFileTest, SettingsFlagsCommentsAndBlankLines) {
  std::vector<ConfigEntry> e = ParseConfigText(
      "# braid defaults\n"
      "\n"
      "streams = 8\n"
      "   window=4M   \n"
      "\tforce\n"
      "qos = qbss # scavenger class\n"
      "  # indented comment\n"
      "remote-cmd = /opt/braid#2/bin/braid\n"
      "--progress = 2\n"
      "verbose # twice as chatty\n",
      "cfg");
  ASSERT_EQ(e.size(), 7u);
  EXPECT_EQ(e[0].key, "streams");
  EXPECT_EQ(e[0].value, "8");
  EXPECT_EQ(e[0].line, 3);
  EXPECT_EQ(e[1].key, "window");
  EXPECT_EQ(e[1].value, "4M");
  EXPECT_EQ(e[2].key, "force");
  EXPECT_FALSE(e[2].value.has_value());
  EXPECT_EQ(e[2].line, 5);
  EXPECT_EQ(e[3].value, "qbss");
  EXPECT_EQ(e[4].value, "/opt/braid#2/bin/braid");  // '#' inside a word is data
  EXPECT_EQ(e[5].key, "progress");                  // "--" is forgiven
  EXPECT_EQ(e[5].value, "2");
  EXPECT_EQ(e[6].key, "verbose");
  EXPECT_FALSE(e[6].value.has_value());
  EXPECT_EQ(e[6].line, 10);
}

TEST(ConfigFileTest, QuotedValuesKeepSpacesAndHashes) {
  std::vector<ConfigEntry> e = ParseConfigText(
      "remote-cmd = \"nice -n 19 braid # low\"  # comment\n"
      "identity = '/keys/my key'\n"
      "data-host = \"\"\n",
      "cfg");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].value, "nice -n 19 braid # low");
  EXPECT_EQ(e[1].value, "/keys/my key");
  EXPECT_EQ(e[2].value, "");
}

TEST(ConfigFileTest, WindowsLineEndingsAndNoFinalNewline) {
  std::vector<ConfigEntry> e = ParseConfigText("streams = 2\r\nforce\r\nwindow = 1M", "cfg");
  ASSERT_EQ(e.size(), 3u);
  EXPECT_EQ(e[0].value, "2");
  EXPECT_EQ(e[1].key, "force");
  EXPECT_EQ(e[2].value, "1M");
  EXPECT_EQ(e[2].line, 3);
  EXPECT_TRUE(ParseConfigText("", "cfg").empty());
  EXPECT_TRUE(ParseConfigText("\n\n# only comments\n", "cfg").empty());
}

TEST(ConfigFileTest, MalformedLinesNameFileAndLine) {
  struct Case {
    const char* text;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {"streams = 2\n= 5\n", "/etc/b.conf:2: expected"},
           {"\n\nstream count = 4\n", "/etc/b.conf:3: expected"},
           {"-s = 4\n", "/etc/b.conf:1: expected"},
           {"streams: 4\n", "/etc/b.conf:1: expected"},
           {"remote-cmd = \"braid\n", "/etc/b.conf:1: unterminated quote"},
           {"remote-cmd = \"braid\" x\n", "/etc/b.conf:1: text after the closing quote"},
           {"streams # comment = 4\n", "/etc/b.conf:1: a comment before '='"},
       }) {
    SCOPED_TRACE(c.text);
    std::string message = UsageMessage([&] { ParseConfigText(c.text, "/etc/b.conf"); });
    EXPECT_TRUE(Contains(message, c.expect)) << message;
  }
}

TEST(ConfigFileTest, ArgumentsAreSingleTokens) {
  EXPECT_EQ(ConfigArgument({"streams", "8", 1}), "--streams=8");
  EXPECT_EQ(ConfigArgument({"force", std::nullopt, 1}), "--force");
  EXPECT_EQ(ConfigArgument({"remote-cmd", "nice braid", 1}), "--remote-cmd=nice braid");
  EXPECT_EQ(ConfigArgument({"data-host", "", 1}), "--data-host=");
}

TEST(ConfigFileTest, DefaultPathIsUnderHome) {
  EXPECT_EQ(DefaultConfigPath("/home/ann"), "/home/ann/.config/braid/config");
  EXPECT_EQ(DefaultConfigPath("/"), "/.config/braid/config");
  EXPECT_EQ(DefaultConfigPath(""), "");
}

// ------------------------------------------------- the file under the command line

/// A private directory with HOME pointing at it for the test's duration, so
/// neither the user's config nor another test's leaks in.
class ConfigCommandLineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/braid-config-test-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    const char* home = std::getenv("HOME");
    if (home != nullptr) saved_home_ = home;
    ::setenv("HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (saved_home_) {
      ::setenv("HOME", saved_home_->c_str(), 1);
    } else {
      ::unsetenv("HOME");
    }
    std::filesystem::remove_all(dir_);
  }

  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
    return path;
  }

  static Options Parse(std::vector<std::string> args) { return ParseArgs(std::move(args)).options; }

  std::string dir_;
  std::optional<std::string> saved_home_;
};

TEST_F(ConfigCommandLineTest, ExplicitFileSetsDefaults) {
  std::string cfg = Write("c", "streams = 8\nwindow = 4M\nforce\nprogress = 2\nverbose\n");
  Options o = Parse({"-C", cfg, "a", "b"});
  EXPECT_EQ(o.streams, 8);
  EXPECT_EQ(o.window, 4u << 20);
  EXPECT_TRUE(o.force);
  EXPECT_DOUBLE_EQ(o.progress_interval, 2);
  EXPECT_EQ(o.verbose, 1);
  EXPECT_EQ(o.config_file, cfg);
}

TEST_F(ConfigCommandLineTest, CommandLineWins) {
  std::string cfg = Write("c", "streams = 8\nwindow = 4M\nforce\n");
  Options o = Parse({"--config", cfg, "-s", "2", "--force=false", "a", "b"});
  EXPECT_EQ(o.streams, 2);
  EXPECT_EQ(o.window, 4u << 20);
  EXPECT_FALSE(o.force);
  // The order on the command line does not matter: the file is always first.
  o = Parse({"-s", "3", "--config=" + cfg, "a", "b"});
  EXPECT_EQ(o.streams, 3);
}

TEST_F(ConfigCommandLineTest, CipherComesFromTheFileUnlessGiven) {
  std::string cfg = Write("c", "cipher = chacha20-poly1305\n");
  EXPECT_EQ(Parse({"-C", cfg, "a", "b"}).cipher, Cipher::kChacha20Poly1305);
  EXPECT_EQ(Parse({"-C", cfg, "--cipher", "none", "a", "b"}).cipher, Cipher::kNone);
}

TEST_F(ConfigCommandLineTest, CountedFlagsAreOverriddenNotAddedUp) {
  std::string cfg = Write("c", "verbose = 2\ncompress = 5\n");
  Options o = Parse({"-C", cfg, "a", "b"});
  EXPECT_EQ(o.verbose, 2);
  EXPECT_EQ(o.compress_level, 5);
  o = Parse({"-C", cfg, "-v", "--compress=3", "a", "b"});
  EXPECT_EQ(o.verbose, 1);
  EXPECT_EQ(o.compress_level, 3);
}

TEST_F(ConfigCommandLineTest, RepeatableOptionsCollectFileThenCommandLine) {
  std::string cfg = Write("c", "identity = /k/from-file\n");
  Options o = Parse({"-C", cfg, "-i", "/k/from-cli", "a", "b"});
  EXPECT_EQ(o.identity_files, (std::vector<std::string>{"/k/from-file", "/k/from-cli"}));
}

TEST_F(ConfigCommandLineTest, DefaultFileIsReadFromHomeAndMayBeMissing) {
  EXPECT_EQ(Parse({"a", "b"}).streams, kDefaultStreams);  // none yet: fine
  Write(".config/braid/config", "streams = 5\n");
  EXPECT_EQ(Parse({"a", "b"}).streams, 5);
  EXPECT_FALSE(Parse({"a", "b"}).streams_auto);  // a fixed count turns the default auto off
  // An explicit file replaces the default one.
  std::string other = Write("other", "window = 1M\n");
  Options o = Parse({"-C", other, "a", "b"});
  EXPECT_EQ(o.streams, kDefaultStreams);
  EXPECT_EQ(o.window, 1u << 20);
  // ~ in --config= (no shell to expand it) is HOME.
  EXPECT_EQ(Parse({"--config=~/other", "a", "b"}).window, 1u << 20);
}

TEST_F(ConfigCommandLineTest, MissingExplicitFileIsAnError) {
  std::string message = UsageMessage([&] { Parse({"-C", dir_ + "/nope", "a", "b"}); });
  EXPECT_TRUE(Contains(message, dir_ + "/nope")) << message;
  EXPECT_TRUE(Contains(message, "No such file")) << message;
  message = UsageMessage([&] { Parse({"-C", dir_, "a", "b"}); });
  EXPECT_TRUE(Contains(message, "Is a directory")) << message;
  message = UsageMessage([&] { Parse({"-C", "", "a", "b"}); });
  EXPECT_TRUE(Contains(message, "-C/--config needs a file name")) << message;
}

TEST_F(ConfigCommandLineTest, BadSettingsNameFileAndLine) {
  struct Case {
    const char* text;
    const char* expect;
  };
  for (const Case& c : std::vector<Case>{
           {"streams = 8\n\nstreems = 4\n", ":3: unknown option \"streems\""},
           {"streams = 99\n", ":1: -s/--streams must be a whole number from 1 to 64"},
           {"# c\nstreams\n", ":2: \"streams\" needs a value"},
           {"serve\n", ":1: unknown option \"serve\""},
           {"serve-fd = 3\n", ":1: unknown option \"serve-fd\""},
           {"paths = x\n", ":1: unknown option \"paths\""},
           {"help\n", ":1: \"help\" cannot be set in a config file"},
           {"config = /etc/other\n", ":1: \"config\" cannot be set in a config file"},
           {"force = maybe\n", ":1: "},
       }) {
    SCOPED_TRACE(c.text);
    std::string cfg = Write("bad", c.text);
    std::string message = UsageMessage([&] { Parse({"-C", cfg, "a", "b"}); });
    EXPECT_TRUE(Contains(message, cfg + c.expect)) << message;
  }
}

TEST_F(ConfigCommandLineTest, ServerModeIgnoresTheFile) {
  // A server takes its settings from the agent; a broken file on its host must not stop it.
  Write(".config/braid/config", "no-such-option = 1\n");
  std::vector<const char*> argv = {"braid", "--serve", nullptr};
  std::ostringstream out;
  EXPECT_EQ(ParseCommandLine(2, argv.data(), out).mode, CommandLine::Mode::kServe);
  EXPECT_TRUE(Contains(UsageMessage([&] { Parse({"a", "b"}); }), "no-such-option"));
}

}  // namespace
}  // namespace braid
