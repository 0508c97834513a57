#include "cli/command_line.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "braid/error.h"
#include "parse_args.h"

namespace braid {
namespace {

/// The parser reads ~/.config/braid/config; point HOME at an empty directory
/// so a developer's own config cannot change what these tests see.
class EmptyHome : public ::testing::Environment {
 public:
  void SetUp() override {
    char tmpl[] = "/tmp/braid-unit-home.XXXXXX";
    if (::mkdtemp(tmpl) != nullptr) {
      dir_ = tmpl;
      ::setenv("HOME", dir_.c_str(), 1);
    }
  }
  void TearDown() override {
    if (!dir_.empty()) ::rmdir(dir_.c_str());
  }

 private:
  std::string dir_;
};
const auto* const kEmptyHome = ::testing::AddGlobalTestEnvironment(new EmptyHome);

CommandLine Parse(std::vector<std::string> args, std::string* out = nullptr) {
  return ParseArgs(std::move(args), out);
}

/// The kUsage message for `args`; fails the test when they parse.
std::string UsageError(const std::vector<std::string>& args) {
  try {
    Parse(args);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    std::string message = e.what();
    EXPECT_NE(message.find("(see braid --help)"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    return message;
  }
  std::string joined;
  for (const std::string& a : args) {
    joined += a + " ";
  }
  ADD_FAILURE() << "no error for: " << joined;
  return "";
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

TEST(CommandLineTest, Defaults) {
  const CommandLine cl = Parse({"a", "b"});
  EXPECT_EQ(cl.mode, CommandLine::Mode::kCopy);
  const Options& o = cl.options;
  ASSERT_EQ(o.sources.size(), 1u);
  EXPECT_EQ(o.sources[0].path, "a");
  EXPECT_EQ(o.destination.path, "b");
  // -s auto:1-64 unless told otherwise.
  EXPECT_TRUE(o.streams_auto);
  EXPECT_EQ(o.streams_min, 1);
  EXPECT_EQ(o.streams, 64);
  EXPECT_EQ(o.window, 0u);
  EXPECT_EQ(o.block_size, kDefaultBlockSize);
  EXPECT_EQ(o.progress_interval, 0);
  EXPECT_EQ(o.hash, HashAlgorithm::kNone);
  EXPECT_FALSE(o.force);
  EXPECT_FALSE(o.recursive);
  EXPECT_FALSE(o.preserve);
  EXPECT_EQ(o.remote_command, "braid");
  EXPECT_TRUE(o.identity_files.empty());
  EXPECT_EQ(o.ssh_port, 0);
  EXPECT_EQ(o.verbose, 0);
  EXPECT_FALSE(o.accept_new_host_key);
  EXPECT_FALSE(o.size.has_value());
  EXPECT_EQ(cl.serve_fd, -1);
}

TEST(CommandLineTest, SourcesAndDestinationAreParsedEndpoints) {
  const CommandLine cl = Parse({"f1", "alice@h1:/f2", "[::1]:x", "bob@dtn:/data/"});
  const Options& o = cl.options;
  ASSERT_EQ(o.sources.size(), 3u);
  EXPECT_EQ(o.sources[0].path, "f1");
  EXPECT_FALSE(o.sources[0].is_remote());
  EXPECT_EQ(o.sources[1].user, "alice");
  EXPECT_EQ(o.sources[1].host, "h1");
  EXPECT_EQ(o.sources[2].host, "::1");
  EXPECT_EQ(o.destination.user, "bob");
  EXPECT_EQ(o.destination.host, "dtn");
  EXPECT_EQ(o.destination.path, "/data/");
}

TEST(CommandLineTest, DashIsAnOperand) {
  const CommandLine cl = Parse({"-", "out"});
  EXPECT_TRUE(cl.options.sources[0].is_stdio());
  EXPECT_TRUE(Parse({"in", "-"}).options.destination.is_stdio());
}

TEST(CommandLineTest, DoubleDashEndsOptions) {
  const CommandLine cl = Parse({"-s", "2", "--", "-weird", "--odd"});
  EXPECT_EQ(cl.options.streams, 2);
  EXPECT_EQ(cl.options.sources[0].path, "-weird");
  EXPECT_EQ(cl.options.destination.path, "--odd");
}

TEST(CommandLineTest, OptionsMayFollowOperands) {
  const CommandLine cl = Parse({"/dev/zero", "/dev/null", "--size", "10G"});
  EXPECT_EQ(cl.options.size, std::uint64_t{10} << 30);
  EXPECT_EQ(cl.options.sources[0].path, "/dev/zero");
}

TEST(CommandLineTest, Streams) {
  EXPECT_EQ(Parse({"-s", "8", "a", "b"}).options.streams, 8);
  EXPECT_EQ(Parse({"--streams", "1", "a", "b"}).options.streams, 1);
  EXPECT_EQ(Parse({"--streams=64", "a", "b"}).options.streams, 64);
  EXPECT_EQ(Parse({"-s16", "a", "b"}).options.streams, 16);
}

TEST(CommandLineTest, StreamsOutOfRange) {
  EXPECT_TRUE(Contains(UsageError({"-s", "0", "a", "b"}),
                       "-s/--streams must be a whole number "
                       "from 1 to 64, auto or auto:MIN-MAX, got \"0\""));
  EXPECT_TRUE(Contains(UsageError({"-s", "65", "a", "b"}), "got \"65\""));
  UsageError({"-s", "-1", "a", "b"});
  UsageError({"-s", "auto:0-4", "a", "b"});
  UsageError({"-s", "auto:8-4", "a", "b"});
  UsageError({"-s", "4x", "a", "b"});
  UsageError({"-s", "", "a", "b"});
  UsageError({"-s", "99999999999999999999", "a", "b"});
  UsageError({"-s", " 4", "a", "b"});
  UsageError({"-s", "+4", "a", "b"});
}

TEST(CommandLineTest, StreamsAutoAndPolite) {
  CommandLine cl = Parse({"-s", "auto", "a", "b"});
  EXPECT_TRUE(cl.options.streams_auto);
  EXPECT_EQ(cl.options.streams_min, 1);
  EXPECT_EQ(cl.options.streams, 64);
  cl = Parse({"-s", "auto:2-16", "--polite", "a", "b"});
  EXPECT_EQ(cl.options.streams_min, 2);
  EXPECT_EQ(cl.options.streams, 16);
  EXPECT_TRUE(cl.options.polite);
  EXPECT_FALSE(Parse({"-s", "8", "a", "b"}).options.streams_auto);
  EXPECT_TRUE(Contains(UsageError({"-s", "8", "--polite", "a", "b"}), "--polite needs -s auto"));
  // auto is the default, so --polite alone is enough.
  EXPECT_TRUE(Parse({"--polite", "a", "b"}).options.polite);
}

TEST(CommandLineTest, RepeatedSingleValueOptionTakesTheLast) {
  EXPECT_EQ(Parse({"-s", "2", "-s", "6", "a", "b"}).options.streams, 6);
}

TEST(CommandLineTest, Window) {
  EXPECT_EQ(Parse({"-w", "16M", "a", "b"}).options.window, 16u << 20);
  EXPECT_EQ(Parse({"--window", "262144", "a", "b"}).options.window, 262144u);
  EXPECT_EQ(Parse({"-w", "0", "a", "b"}).options.window, 0u);
  EXPECT_EQ(Parse({"-w", "2147483647", "a", "b"}).options.window, 2147483647u);
  EXPECT_TRUE(Contains(UsageError({"-w", "2G", "a", "b"}), "at most 2147483647"));
  EXPECT_TRUE(Contains(UsageError({"-w", "lots", "a", "b"}), "-w/--window: invalid size \"lots\""));
}

TEST(CommandLineTest, BlockSize) {
  EXPECT_EQ(Parse({"-B", "4K", "a", "b"}).options.block_size, 4096u);
  EXPECT_EQ(Parse({"--blocksize", "64M", "a", "b"}).options.block_size, 64u << 20);
  EXPECT_EQ(Parse({"-B", "2MiB", "a", "b"}).options.block_size, 2u << 20);
  EXPECT_TRUE(
      Contains(UsageError({"-B", "1K", "a", "b"}), "-B/--blocksize must be from 4K to 64M"));
  EXPECT_TRUE(Contains(UsageError({"-B", "4095", "a", "b"}), "got \"4095\""));
  UsageError({"-B", "65M", "a", "b"});
  UsageError({"-B", "0", "a", "b"});
  UsageError({"-B", "16E", "a", "b"});
  EXPECT_TRUE(Contains(UsageError({"-B", "big", "a", "b"}), "-B/--blocksize: invalid size"));
}

TEST(CommandLineTest, Progress) {
  EXPECT_EQ(Parse({"-P", "2", "a", "b"}).options.progress_interval, 2.0);
  EXPECT_EQ(Parse({"--progress", "0.5", "a", "b"}).options.progress_interval, 0.5);
  EXPECT_EQ(Parse({"-P", "1e1", "a", "b"}).options.progress_interval, 10.0);
  for (const char* bad : {"0", "-1", "abc", "nan", "inf", "1s", "", "0.001", "100000"}) {
    EXPECT_TRUE(Contains(UsageError({"-P", bad, "a", "b"}), "-P/--progress must be")) << bad;
  }
}

TEST(CommandLineTest, HashNames) {
  using H = HashAlgorithm;
  EXPECT_EQ(Parse({"a", "b"}).options.hash, H::kNone);
  EXPECT_EQ(Parse({"-e", "a", "b"}).options.hash, H::kMd5);
  EXPECT_EQ(Parse({"-E", "md5", "a", "b"}).options.hash, H::kMd5);
  EXPECT_EQ(Parse({"--hash", "md5", "a", "b"}).options.hash, H::kMd5);
  EXPECT_EQ(Parse({"--md5-check", "md5", "a", "b"}).options.hash, H::kMd5);  // older spelling
  EXPECT_EQ(Parse({"-E", "MD5", "a", "b"}).options.hash, H::kMd5);
  EXPECT_EQ(Parse({"-e", "-E", "md5", "a", "b"}).options.hash, H::kMd5);
  EXPECT_EQ(Parse({"-E", "sha256", "a", "b"}).options.hash, H::kSha256);
  EXPECT_EQ(Parse({"-E", "SHA256", "a", "b"}).options.hash, H::kSha256);
  EXPECT_EQ(Parse({"--hash=Sha256", "a", "b"}).options.hash, H::kSha256);
  EXPECT_EQ(Parse({"-E", "xxh128", "a", "b"}).options.hash, H::kXxh128);
  EXPECT_EQ(Parse({"-E", "XXH128", "a", "b"}).options.hash, H::kXxh128);
  EXPECT_EQ(Parse({"-E", "md5", "-E", "xxh128", "a", "b"}).options.hash, H::kXxh128);  // last wins
}

TEST(CommandLineTest, HashFormsBraidDoesNotTakeAreUsageErrors) {
  // bbcp's forms (%md5: checksum the source only, md5=HEX: compare with a
  // given value, a32/c32: adler32/crc32) and anything else unknown.
  for (const char* bad : {"%md5", "md5=0123456789abcdef0123456789abcdef", "a32", "c32", "sha1",
                          "crc", "sha-256", "xxh64", "md5 ", ""}) {
    std::string err = UsageError({"-E", bad, "a", "b"});
    EXPECT_TRUE(Contains(err, "-E/--hash takes md5, sha256 or xxh128, got")) << bad << ": " << err;
  }
  EXPECT_TRUE(Contains(UsageError({"-e", "-E", "sha256", "a", "b"}),
                       "-e means -E md5; it cannot be combined with -E sha256"));
  UsageError({"-e", "-E", "crc", "a", "b"});
}

TEST(CommandLineTest, GrowingTakesFiveSecondsUnlessTold) {
  EXPECT_EQ(Parse({"a", "b"}).options.growing, 0);
  EXPECT_EQ(Parse({"-R", "a", "b"}).options.growing, 5);
  EXPECT_EQ(Parse({"--growing", "a", "b"}).options.growing, 5);
  EXPECT_EQ(Parse({"--growing=0.5", "a", "b"}).options.growing, 0.5);
  EXPECT_EQ(Parse({"-R", "a", "b"}).options.sources.front().path, "a");  // no value taken
  EXPECT_TRUE(Contains(UsageError({"--growing=7200", "a", "b"}), "at most 3600 seconds"));
  EXPECT_TRUE(Contains(UsageError({"--growing=soon", "a", "b"}), "-R/--growing must be"));
}

TEST(CommandLineTest, DirectTakesSTOrBoth) {
  EXPECT_EQ(Parse({"a", "b"}).options.direct, 0);
  EXPECT_EQ(Parse({"-u", "s", "a", "b"}).options.direct, kDirectReads);
  EXPECT_EQ(Parse({"-u", "t", "a", "b"}).options.direct, kDirectWrites);
  EXPECT_EQ(Parse({"--direct=st", "a", "b"}).options.direct, kDirectReads | kDirectWrites);
  EXPECT_EQ(Parse({"-u", "ts", "a", "b"}).options.direct, kDirectReads | kDirectWrites);
  for (const char* bad : {"", "x", "sts", "S", "both"}) {
    EXPECT_TRUE(Contains(UsageError({"-u", bad, "a", "b"}),
                         "-u/--direct takes s (the source's reads), t (the target's writes) or st"))
        << bad;
  }
}

TEST(CommandLineTest, PipesTakeIOOrBothAndOneCommandEachSide) {
  EXPECT_EQ(Parse({"a", "b"}).options.pipes, 0);
  EXPECT_EQ(Parse({"-N", "i", "tar cf - d", "b"}).options.pipes, kPipeIn);
  EXPECT_EQ(Parse({"-N", "o", "a", "h:tar xf -"}).options.pipes, kPipeOut);
  EXPECT_EQ(Parse({"--pipes=io", "a", "b"}).options.pipes, kPipeIn | kPipeOut);
  EXPECT_EQ(Parse({"-N", "oi", "a", "b"}).options.pipes, kPipeIn | kPipeOut);
  CommandLine remote = Parse({"-N", "io", "h:tar cf - d", "g:tar xf -"});
  EXPECT_EQ(remote.options.sources.at(0).host, "h");
  EXPECT_EQ(remote.options.sources.at(0).path, "tar cf - d");
  EXPECT_EQ(remote.options.destination.path, "tar xf -");
  for (const char* bad : {"", "x", "ioi", "I"}) {
    EXPECT_TRUE(Contains(UsageError({"-N", bad, "a", "b"}), "-N/--pipes takes i")) << bad;
  }
  EXPECT_TRUE(Contains(UsageError({"-N", "i", "a", "b", "c"}), "exactly one SRC"));
  EXPECT_TRUE(Contains(UsageError({"-N", "i", "-", "c"}), "SRC must be a command"));
  EXPECT_TRUE(Contains(UsageError({"-N", "o", "a", "-"}), "DST must be a command"));
  EXPECT_TRUE(Contains(UsageError({"-N", "o", "-r", "a", "b"}), "-N and -r"));
  EXPECT_TRUE(Contains(UsageError({"-N", "i", "a", "--to", "b"}), "-N does not work with --to"));
  // A retry would run the commands again: only when asked for.
  EXPECT_EQ(Parse({"-N", "o", "a", "b"}).options.retries, 0);
  EXPECT_EQ(Parse({"-N", "o", "--retry", "2", "a", "b"}).options.retries, 2);
  EXPECT_EQ(Parse({"a", "b"}).options.retries, kDefaultRetries);
}

TEST(CommandLineTest, CipherNames) {
  using C = Cipher;
  EXPECT_EQ(Parse({"a", "b"}).options.cipher, C::kAes128Gcm);  // sealed by default
  EXPECT_EQ(Parse({"--cipher", "aes-128-gcm", "a", "b"}).options.cipher, C::kAes128Gcm);
  EXPECT_EQ(Parse({"--cipher", "AES-256-GCM", "a", "b"}).options.cipher, C::kAes256Gcm);
  EXPECT_EQ(Parse({"--cipher=chacha20-poly1305", "a", "b"}).options.cipher, C::kChacha20Poly1305);
  EXPECT_EQ(Parse({"--cipher", "none", "a", "b"}).options.cipher, C::kNone);
  EXPECT_EQ(Parse({"--cipher", "none", "--cipher", "aes-256-gcm", "a", "b"}).options.cipher,
            C::kAes256Gcm);  // last wins
  for (const char* bad : {"aes", "aes128-gcm", "aes-128-ctr", "chacha20", "off", ""}) {
    std::string err = UsageError({"--cipher", bad, "a", "b"});
    EXPECT_TRUE(Contains(err,
                         "--cipher takes aes-128-gcm, aes-256-gcm, chacha20-poly1305 or "
                         "none, got"))
        << bad << ": " << err;
  }
}

TEST(CommandLineTest, BooleanFlags) {
  const Options o = Parse({"-f", "-r", "-p", "--accept-new-host-key", "a", "b"}).options;
  EXPECT_TRUE(o.force);
  EXPECT_TRUE(o.recursive);
  EXPECT_TRUE(o.preserve);
  EXPECT_TRUE(o.accept_new_host_key);
  const Options l = Parse({"--force", "--recursive", "--preserve", "a", "b"}).options;
  EXPECT_TRUE(l.force && l.recursive && l.preserve);
}

TEST(CommandLineTest, BundledShortFlags) {
  const Options o = Parse({"-rfpe", "a", "b"}).options;
  EXPECT_TRUE(o.recursive && o.force && o.preserve && o.hash == HashAlgorithm::kMd5);
}

TEST(CommandLineTest, RemoteCommand) {
  EXPECT_EQ(Parse({"-T", "/opt/braid/bin/braid", "a", "b"}).options.remote_command,
            "/opt/braid/bin/braid");
  EXPECT_EQ(Parse({"--remote-cmd", "braid-0.2", "a", "b"}).options.remote_command, "braid-0.2");
  EXPECT_TRUE(Contains(UsageError({"-T", "", "a", "b"}), "-T/--remote-cmd must not be empty"));
}

TEST(CommandLineTest, IdentityIsRepeatableAndTakesOneValueEach) {
  const CommandLine cl = Parse({"-i", "k1", "--identity", "k2", "-i", "k3", "src", "dst"});
  EXPECT_EQ(cl.options.identity_files, (std::vector<std::string>{"k1", "k2", "k3"}));
  ASSERT_EQ(cl.options.sources.size(), 1u);
  EXPECT_EQ(cl.options.sources[0].path, "src");
  EXPECT_EQ(cl.options.destination.path, "dst");
  UsageError({"-i", "", "a", "b"});
}

TEST(CommandLineTest, SshPort) {
  EXPECT_EQ(Parse({"--ssh-port", "2222", "a", "b"}).options.ssh_port, 2222);
  EXPECT_EQ(Parse({"--ssh-port", "1", "a", "b"}).options.ssh_port, 1);
  EXPECT_EQ(Parse({"--ssh-port", "65535", "a", "b"}).options.ssh_port, 65535);
  EXPECT_TRUE(Contains(UsageError({"--ssh-port", "0", "a", "b"}), "--ssh-port must be"));
  UsageError({"--ssh-port", "65536", "a", "b"});
  UsageError({"--ssh-port", "ssh", "a", "b"});
}

TEST(CommandLineTest, VerboseCounts) {
  EXPECT_EQ(Parse({"-v", "a", "b"}).options.verbose, 1);
  EXPECT_EQ(Parse({"-vvv", "a", "b"}).options.verbose, 3);
  EXPECT_EQ(Parse({"-v", "--verbose", "-vv", "a", "b"}).options.verbose, 4);
}

TEST(CommandLineTest, Size) {
  EXPECT_EQ(Parse({"--size", "1048576", "a", "b"}).options.size, 1048576u);
  EXPECT_EQ(Parse({"--size", "0", "a", "b"}).options.size, 0u);
  EXPECT_TRUE(Contains(UsageError({"--size", "10Q", "a", "b"}), "--size: invalid size \"10Q\""));
  UsageError({"--size", "-1", "a", "b"});
}

TEST(CommandLineTest, MissingOperands) {
  EXPECT_TRUE(Contains(UsageError({}), "missing SRC and DST"));
  EXPECT_TRUE(Contains(UsageError({"a"}), "missing DST"));
  EXPECT_TRUE(Contains(UsageError({"-r", "-s", "4", "a"}), "missing DST"));
}

TEST(CommandLineTest, BadOperands) {
  EXPECT_TRUE(Contains(UsageError({"a", "@:x"}), "invalid path \"@:x\""));
  UsageError({"[::1", "b"});
  UsageError({"a", ""});
}

TEST(CommandLineTest, UnknownOptionsAndMissingValues) {
  EXPECT_TRUE(Contains(UsageError({"--bogus", "a", "b"}), "--bogus"));
  UsageError({"-x", "a", "b"});
  EXPECT_TRUE(Contains(UsageError({"a", "b", "-s"}), "streams"));
  UsageError({"a", "b", "-i"});
}

TEST(CommandLineTest, ErrorsEscapeControlCharacters) {
  const std::string message = UsageError({"--bo\x1b[2Jgus", "a", "b"});
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  EXPECT_TRUE(Contains(UsageError({"-s", "\x1b", "a", "b"}), "\\x1b"));
}

TEST(CommandLineTest, HelpPrintsAndExits) {
  std::string out;
  const CommandLine cl = Parse({"--help"}, &out);
  EXPECT_EQ(cl.mode, CommandLine::Mode::kExit);
  EXPECT_EQ(cl.exit_code, 0);
  EXPECT_TRUE(Contains(out, "Usage: braid [OPTIONS] SRC... DST"));
  EXPECT_TRUE(Contains(out, "user@host:path"));
  EXPECT_TRUE(Contains(out, "[v6addr]:path"));
  EXPECT_TRUE(Contains(out, "stdin"));
  EXPECT_TRUE(Contains(out, "local-to-local"));
  EXPECT_TRUE(Contains(out, "K, M, G or T"));
  EXPECT_TRUE(Contains(out, "braid -s 8 -P 2 -e big.dat user@dtn:/data/"));
  EXPECT_TRUE(Contains(out, "braid /dev/zero /dev/null --size 10G"));
  for (const char* option :
       {"--streams", "--window", "--blocksize", "--progress", "--hash", "--force", "--recursive",
        "--preserve", "--remote-cmd", "--identity", "--ssh-port", "--verbose",
        "--accept-new-host-key", "--size", "--version", "--help"}) {
    EXPECT_TRUE(Contains(out, option)) << option;
  }
  EXPECT_FALSE(Contains(out, "--serve-fd"));  // hidden
  EXPECT_FALSE(Contains(out, "  --serve "));
}

TEST(CommandLineTest, ShortHelpWinsOverOperandsAndOtherErrors) {
  std::string out;
  EXPECT_EQ(Parse({"a", "b", "-h"}, &out).mode, CommandLine::Mode::kExit);
  EXPECT_TRUE(Contains(out, "Usage:"));
  EXPECT_EQ(Parse({"-h", "-s", "0"}).mode, CommandLine::Mode::kExit);
}

TEST(CommandLineTest, VersionIsLeftToMain) {
  // main prints it (agent/version_text), since it names libraries the
  // command line does not link; the integration tests read what it prints.
  std::string out;
  const CommandLine cl = Parse({"--version"}, &out);
  EXPECT_EQ(cl.mode, CommandLine::Mode::kVersion);
  EXPECT_EQ(out, "");
  EXPECT_EQ(Parse({"a", "--version", "b"}).mode, CommandLine::Mode::kVersion);
}

TEST(CommandLineTest, CapitalVIsVeryVerboseAsInBbcp) {
  EXPECT_EQ(Parse({"-V", "a", "b"}).options.verbose, 2);
  EXPECT_EQ(Parse({"-V", "-v", "a", "b"}).options.verbose, 3);
  EXPECT_EQ(Parse({"-V", "a", "b"}).mode, CommandLine::Mode::kCopy);
}

TEST(CommandLineTest, HelpFitsEightyColumnsInSectionsWithoutParserLeftovers) {
  std::string out;
  Parse({"--help"}, &out);
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    EXPECT_LE(line.size(), 80u) << line;
    EXPECT_EQ(line.find('{'), std::string::npos) << line;
    EXPECT_EQ(line.find(" TEXT"), std::string::npos) << line;
    EXPECT_EQ(line.find("OPTIONS:"), std::string::npos) << line;  // CLI11's catch-all group
  }
  // The sections in order, and an option of each where it belongs.
  std::size_t at = 0;
  for (const char* section :
       {"\nCopying:\n  -r,--recursive", "\nStreams and network:\n  -s,--streams N",
        "\nResume:\n  --retry N", "\nOutput:\n", "\nssh:\n  -T,--remote-cmd CMD"}) {
    std::size_t found = out.find(section, at);
    EXPECT_NE(found, std::string::npos) << section << "\n" << out;
    if (found != std::string::npos) at = found;
  }
  EXPECT_TRUE(Contains(out, "  -c,--compress[=N]")) << out;
  EXPECT_TRUE(Contains(out, "  -Z,--port-range A:B")) << out;
  EXPECT_TRUE(Contains(out, "  -V  ")) << out;
  EXPECT_TRUE(Contains(out, "  -h,--help  ")) << out;
}

TEST(CommandLineTest, Serve) {
  const CommandLine cl = Parse({"--serve"});
  EXPECT_EQ(cl.mode, CommandLine::Mode::kServe);
  EXPECT_EQ(cl.serve_fd, -1);
  const CommandLine fd = Parse({"--serve", "--serve-fd", "5", "-vv"});
  EXPECT_EQ(fd.mode, CommandLine::Mode::kServe);
  EXPECT_EQ(fd.serve_fd, 5);
  EXPECT_EQ(fd.options.verbose, 2);
}

TEST(CommandLineTest, ServeErrors) {
  EXPECT_TRUE(Contains(UsageError({"--serve", "a", "b"}), "--serve takes no SRC or DST"));
  UsageError({"--serve-fd", "3", "a", "b"});  // needs --serve
  UsageError({"--serve", "--serve-fd", "-1"});
  UsageError({"--serve", "--serve-fd", "x"});
  UsageError({"--serve", "--serve-fd", "99999999999"});
}

TEST(CommandLineTest, NoArgvAtAll) {
  EXPECT_THROW(ParseCommandLine(0, nullptr), BraidError);
  const char* argv[] = {"braid", nullptr};
  EXPECT_THROW(ParseCommandLine(1, argv), BraidError);
}

TEST(CommandLineTest, BbcpStyleExample) {
  const Options o = Parse({"-s", "8", "-P", "2", "-e", "big.dat", "user@dtn:/data/"}).options;
  EXPECT_EQ(o.streams, 8);
  EXPECT_EQ(o.progress_interval, 2.0);
  EXPECT_EQ(o.hash, HashAlgorithm::kMd5);
  EXPECT_EQ(o.sources[0].path, "big.dat");
  EXPECT_EQ(o.destination.user, "user");
  EXPECT_EQ(o.destination.host, "dtn");
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

TEST(CommandLineTest, SshCommandAndStallTimeout) {
  const Options defaults = Parse({"a", "host:b"}).options;
  EXPECT_TRUE(defaults.ssh_command.empty());  // libssh2 unless -S
  EXPECT_DOUBLE_EQ(defaults.stall_timeout, kDefaultStallTimeout);

  const Options o =
      Parse({"-S", "ssh -F cfg -J 'jump host'", "--stall-timeout", "2.5", "a", "host:b"}).options;
  EXPECT_EQ(o.ssh_command, "ssh -F cfg -J 'jump host'");  // kept as shell words for /bin/sh
  EXPECT_DOUBLE_EQ(o.stall_timeout, 2.5);
  EXPECT_EQ(Parse({"--ssh-command=ssh -4", "a", "host:b"}).options.ssh_command, "ssh -4");
  EXPECT_DOUBLE_EQ(Parse({"--stall-timeout", "0", "a", "b"}).options.stall_timeout, 0);

  EXPECT_TRUE(Contains(UsageError({"-S", "", "a", "host:b"}), "-S/--ssh-command needs a command"));
  EXPECT_TRUE(Contains(UsageError({"-S", "  ", "a", "host:b"}), "-S/--ssh-command"));
  for (const char* bad : {"-1", "0.05", "x", "", "nan", "1e9", "2s"}) {
    EXPECT_TRUE(Contains(UsageError({"--stall-timeout", bad, "a", "b"}), "--stall-timeout")) << bad;
  }
}

TEST(CommandLineTest, Retry) {
  EXPECT_EQ(Parse({"a", "host:b"}).options.retries, kDefaultRetries);
  EXPECT_EQ(Parse({"--retry", "0", "a", "host:b"}).options.retries, 0);
  EXPECT_EQ(Parse({"--retry=7", "a", "host:b"}).options.retries, 7);
  for (const char* bad : {"-1", "101", "x", "", "1.5", "3 "}) {
    EXPECT_TRUE(Contains(UsageError({"--retry", bad, "a", "b"}), "--retry must be a whole number"))
        << bad;
  }
}

TEST(CommandLineTest, ListCaps) {
  EXPECT_EQ(Parse({"a", "b"}).options.list_limits, ListLimits{});
  ListLimits set =
      Parse({"--max-entries", "20000000", "--max-list-bytes", "8G", "a", "b"}).options.list_limits;
  EXPECT_EQ(set.max_entries, 20'000'000u);
  EXPECT_EQ(set.max_list_bytes, 8ull << 30);
  for (const char* bad : {"0", "-1", "x", "1e3", "99999999999"}) {
    EXPECT_TRUE(Contains(UsageError({"--max-entries", bad, "a", "b"}), "--max-entries")) << bad;
  }
  for (const char* bad : {"0", "x", "-1"}) {
    EXPECT_TRUE(Contains(UsageError({"--max-list-bytes", bad, "a", "b"}), "--max-list-bytes"))
        << bad;
  }
  // The server takes them too: the agent passes a raised cap on to its ends.
  CommandLine serve = ParseArgs({"--serve", "--max-entries", "5"});
  EXPECT_EQ(serve.mode, CommandLine::Mode::kServe);
  EXPECT_EQ(serve.options.list_limits.max_entries, 5u);
}

TEST(CommandLineTest, ConnectTimeout) {
  EXPECT_DOUBLE_EQ(Parse({"a", "host:b"}).options.connect_timeout_seconds(),
                   kDefaultConnectTimeout);
  EXPECT_DOUBLE_EQ(Parse({"--connect-timeout", "2.5", "a", "host:b"}).options.connect_timeout, 2.5);
  for (const char* bad : {"-1", "0", "x", "", "nan", "1e9", "2s"}) {
    EXPECT_TRUE(Contains(UsageError({"--connect-timeout", bad, "a", "b"}), "--connect-timeout"))
        << bad;
  }
}

TEST(CommandLineTest, SshCommandFromConfigFile) {
  char tmpl[] = "/tmp/braid-unit-ssh-cmd.XXXXXX";
  ASSERT_NE(::mkdtemp(tmpl), nullptr);
  const std::string cfg = std::string(tmpl) + "/config";
  std::ofstream(cfg) << "ssh-command = ssh -o ServerAliveInterval=5 -J jump\n"
                     << "stall-timeout = 30\n";
  const Options o = Parse({"-C", cfg, "a", "host:b"}).options;
  EXPECT_EQ(o.ssh_command, "ssh -o ServerAliveInterval=5 -J jump");
  EXPECT_DOUBLE_EQ(o.stall_timeout, 30);
  // The command line wins over the file.
  EXPECT_EQ(Parse({"-C", cfg, "-S", "ssh", "a", "host:b"}).options.ssh_command, "ssh");
  std::filesystem::remove_all(tmpl);
}

TEST(CommandLineTest, FsyncPolicy) {
  EXPECT_EQ(Parse({"a", "b"}).options.fsync, FsyncPolicy::kData);
  EXPECT_EQ(Parse({"-y", "none", "a", "b"}).options.fsync, FsyncPolicy::kNone);
  EXPECT_EQ(Parse({"-y", "d", "a", "b"}).options.fsync, FsyncPolicy::kData);
  EXPECT_EQ(Parse({"--fsync", "dd", "a", "b"}).options.fsync, FsyncPolicy::kDataAndDirs);
  EXPECT_EQ(Parse({"--fsync=none", "a", "b"}).options.fsync, FsyncPolicy::kNone);
  EXPECT_EQ(Parse({"-y", "none", "-y", "dd", "a", "b"}).options.fsync, FsyncPolicy::kDataAndDirs);
  for (const char* bad : {"", "D", "data", "ddd", "n", "0", "yes"}) {
    EXPECT_TRUE(Contains(UsageError({"-y", bad, "a", "b"}),
                         "-y/--fsync must be none, d (data) or dd (data and directory entries)"))
        << bad;
  }
  UsageError({"a", "b", "-y"});
  std::string out;
  Parse({"--help"}, &out);
  EXPECT_TRUE(Contains(out, "--fsync")) << out;
}

}  // namespace
}  // namespace braid

namespace braid {
namespace {

TEST(CommandLineTest, CompressLevelAsBbcpWritesIt) {
  // bbcp's -c 5 and -c5 are level 5, not a source named 5 or a flag -5.
  for (const std::vector<std::string>& args : {std::vector<std::string>{"-c", "5", "src", "dst"},
                                               {"-c5", "src", "dst"},
                                               {"--compress=5", "src", "dst"}}) {
    CommandLine c = Parse(args);
    EXPECT_EQ(c.options.compress_level, 5) << args[0];
    ASSERT_EQ(c.options.sources.size(), 1u) << args[0];
    EXPECT_EQ(c.options.sources[0].path, "src");
  }
  EXPECT_EQ(Parse({"-c", "src", "dst"}).options.compress_level, 1);
  // A file named 5 is ./5; after -- every word is a path.
  CommandLine named = Parse({"-c", "./5", "dst"});
  EXPECT_EQ(named.options.compress_level, 1);
  EXPECT_EQ(named.options.sources[0].path, "./5");
  CommandLine after = Parse({"--", "-c5", "dst"});
  EXPECT_EQ(after.options.compress_level, Parse({"src", "dst"}).options.compress_level);
  EXPECT_EQ(after.options.sources[0].path, "-c5");
}

}  // namespace
}  // namespace braid
