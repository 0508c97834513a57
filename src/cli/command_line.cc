#include "cli/command_line.h"

#include <CLI/CLI.hpp>
#include <charconv>
#include <climits>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "braid/error.h"
#include "cli/endpoint_parser.h"
#include "cli/quote.h"
#include "cli/size_parser.h"

#ifndef BRAID_VERSION
#error "BRAID_VERSION must be defined by the build (see src/CMakeLists.txt)"
#endif

namespace braid {
namespace {

constexpr char kHint[] = " (see braid --help)";
constexpr double kMinProgressSeconds = 0.01;  ///< below this the reports are a busy loop
constexpr double kMaxProgressSeconds = 86400;

constexpr char kDescription[] =
    "braid " BRAID_VERSION ": copy files and data sets over many parallel TCP streams.";

constexpr char kFooter[] = R"(Each SRC and DST is one of:
  user@host:path       a path on a remote host, reached over ssh (user@ is optional)
  user@[v6addr]:path   the same, with an IPv6 address in brackets
  host:                the remote home directory
  path                 a local path; a '/' before the first ':' keeps it local (./a:b)
  -                    stdin as SRC, stdout as DST
With several sources DST is a directory. A local-to-local copy runs the same protocol
through a child 'braid --serve' over pipes, exactly as a remote copy would over ssh.
Between two remote hosts the data goes directly from one to the other.

SIZE values are bytes with an optional K, M, G or T suffix (binary: 1K = 1024),
e.g. 64K, 16M, 1.5G, 4KiB.

Examples:
  braid -s 8 -P 2 -e big.dat user@dtn:/data/
  braid -r run42/ user@dtn.example.org:/data/run42/
  braid siteA:/f siteB:/dir/
  braid /dev/zero /dev/null --size 10G)";

/// CLI11's default usage line would show the positional as "[paths...]".
class Formatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* /*app*/, std::string /*name*/) const override {
    return "Usage: braid [OPTIONS] SRC... DST\n";
  }
  std::string make_positionals(const CLI::App* /*app*/) const override { return ""; }
};

[[noreturn]] void Fail(const std::string& message) { throw BraidError(ErrorCode::kUsage, message); }

/// An argument in double quotes for a message.
std::string Quote(std::string_view text) { return QuoteForMessage(text, 64); }

/// A whole decimal integer in [min, max]; no sign, spaces or suffix tolerated.
int ParseIntInRange(const std::string& text, long min, long max, const std::string& what) {
  long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    Fail(what + " must be a whole number from " + std::to_string(min) + " to " +
         std::to_string(max) + ", got " + Quote(text));
  }
  return static_cast<int>(value);
}

/// Wraps ParseSize's message with the option it came from.
std::uint64_t ParseSizeFor(const std::string& text, const std::string& what) {
  try {
    return ParseSize(text);
  } catch (const BraidError& e) {
    Fail(what + ": " + e.what());
  }
}

double ParseSeconds(const std::string& text, const std::string& what) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  // The negated test also rejects NaN.
  if (text.empty() || ec != std::errc() || ptr != end ||
      !(value >= kMinProgressSeconds && value <= kMaxProgressSeconds)) {
    Fail(what + " must be a number of seconds from 0.01 to 86400, got " + Quote(text));
  }
  return value;
}

/// The raw option values as CLI11 collects them; converted and checked afterwards so every
/// error names its option in our words.
struct RawArgs {
  std::string streams;
  std::string window;
  std::string block_size;
  std::string progress;
  std::string md5_check;
  bool md5_short = false;
  std::string ssh_port;
  std::string size;
  std::string serve_fd;
  bool serve = false;
  bool version = false;
  std::vector<std::string> paths;
};

/// Registers every option; flags that need no conversion go straight into `options`.
void DefineOptions(CLI::App& app, RawArgs& raw, Options& options) {
  app.formatter(std::make_shared<Formatter>());
  app.set_help_flag("-h,--help", "Print this help and exit");
  // Repeating a single-valued option overrides it, as in most Unix tools.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  app.add_option("-s,--streams", raw.streams, "Parallel TCP data streams, 1 to 64 (default 4)")
      ->type_name("N");
  app.add_option("-w,--window", raw.window,
                 "Socket buffer size per stream (default: kernel autotuning)")
      ->type_name("SIZE");
  app.add_option("-B,--blocksize", raw.block_size, "Block size, 4K to 64M (default 1M)")
      ->type_name("SIZE");
  app.add_option("-P,--progress", raw.progress,
                 "Print a progress line every SEC seconds (default: bar on a TTY)")
      ->type_name("SEC");
  app.add_option("-E,--md5-check", raw.md5_check,
                 "Compare whole-file checksums at both ends (only md5)")
      ->type_name("md5");
  app.add_flag("-e", raw.md5_short, "Same as -E md5");
  app.add_flag("-f,--force", options.force, "Overwrite existing files at the destination");
  app.add_flag("-r,--recursive", options.recursive, "Copy directories recursively");
  app.add_flag("-p,--preserve", options.preserve, "Preserve mode and modification times");
  app.add_option("-T,--remote-cmd", options.remote_command,
                 "Command that runs braid on remote hosts (default braid)")
      ->type_name("CMD");
  app.add_option("-i,--identity", options.identity_files, "ssh private key; repeatable")
      ->type_name("FILE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);  // "-i key src dst" must leave src and dst alone
  app.add_option("--ssh-port", raw.ssh_port, "ssh port (default: ~/.ssh/config or 22)")
      ->type_name("N");
  app.add_flag("-v,--verbose", options.verbose, "More detail on stderr; repeatable");
  app.add_flag("--accept-new-host-key", options.accept_new_host_key,
               "Trust and remember the key of a host not yet in known_hosts");
  app.add_option("--size", raw.size, "Bytes to read from a device source such as /dev/zero")
      ->type_name("SIZE");
  app.add_flag("--version", raw.version, "Print the version and exit");

  // Hidden: how the agent starts the far end of a transfer.
  auto* serve = app.add_flag("--serve", raw.serve, "Serve the control protocol")->group("");
  app.add_option("--serve-fd", raw.serve_fd, "Control protocol on this fd")
      ->group("")
      ->needs(serve);

  app.add_option("paths", raw.paths, "SRC... DST")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.description(kDescription);
  app.footer(kFooter);
}

/// Converts and range-checks what CLI11 collected. Presence is taken from `app`, so an
/// explicit empty value ("-s ''") is an error rather than the default.
void ApplyRaw(const CLI::App& app, const RawArgs& raw, Options& options) {
  auto given = [&app](const char* name) { return app.count(name) > 0; };
  if (given("--streams")) {
    options.streams = ParseIntInRange(raw.streams, 1, kMaxStreams, "-s/--streams");
  }
  if (given("--window")) {
    options.window = ParseSizeFor(raw.window, "-w/--window");
    if (options.window > static_cast<std::uint64_t>(INT_MAX)) {
      Fail("-w/--window must be at most 2147483647 bytes (the socket API's limit), got " +
           Quote(raw.window));
    }
  }
  if (given("--blocksize")) {
    const std::uint64_t size = ParseSizeFor(raw.block_size, "-B/--blocksize");
    if (size < kMinBlockSize || size > kMaxBlockSize) {
      Fail("-B/--blocksize must be from 4K to 64M, got " + Quote(raw.block_size));
    }
    options.block_size = static_cast<std::uint32_t>(size);
  }
  if (given("--progress")) {
    options.progress_interval = ParseSeconds(raw.progress, "-P/--progress");
  }
  if (given("--md5-check")) {
    if (raw.md5_check != "md5" && raw.md5_check != "MD5") {
      Fail("-E/--md5-check supports only \"md5\", got " + Quote(raw.md5_check));
    }
    options.md5 = true;
  }
  if (raw.md5_short) {
    options.md5 = true;
  }
  if (options.remote_command.empty()) {
    Fail("-T/--remote-cmd must not be empty");
  }
  for (const std::string& file : options.identity_files) {
    if (file.empty()) {
      Fail("-i/--identity needs a file name");
    }
  }
  if (given("--ssh-port")) {
    options.ssh_port = ParseIntInRange(raw.ssh_port, 1, 65535, "--ssh-port");
  }
  if (given("--size")) {
    options.size = ParseSizeFor(raw.size, "--size");
  }
}

CommandLine Parse(int argc, const char* const* argv, std::ostream& out) {
  // CLI11 wants the arguments after the program name, last first. Building them ourselves
  // also copes with argc == 0 and a short argv.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1 && argv != nullptr; --i) {
    if (argv[i] != nullptr) {
      args.emplace_back(argv[i]);
    }
  }

  CLI::App app;
  RawArgs raw;
  CommandLine result;
  DefineOptions(app, raw, result.options);
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help
      out << app.help();
      result.mode = CommandLine::Mode::kExit;
      return result;
    }
    Fail(EscapeControl(e.what(), 400));  // CLI11 echoes the offending argument
  }
  if (raw.version) {
    out << "braid " BRAID_VERSION "\n";
    result.mode = CommandLine::Mode::kExit;
    return result;
  }

  ApplyRaw(app, raw, result.options);
  if (raw.serve) {
    if (!raw.paths.empty()) {
      Fail("--serve takes no SRC or DST");
    }
    if (app.count("--serve-fd") > 0) {
      result.serve_fd = ParseIntInRange(raw.serve_fd, 0, INT_MAX, "--serve-fd");
    }
    result.mode = CommandLine::Mode::kServe;
    return result;
  }
  if (raw.paths.size() < 2) {
    Fail(raw.paths.empty() ? "missing SRC and DST" : "missing DST after SRC");
  }
  for (std::size_t i = 0; i + 1 < raw.paths.size(); ++i) {
    result.options.sources.push_back(ParseEndpoint(raw.paths[i]));
  }
  result.options.destination = ParseEndpoint(raw.paths.back());
  return result;
}

}  // namespace

CommandLine ParseCommandLine(int argc, const char* const* argv) {
  return ParseCommandLine(argc, argv, std::cout);
}

CommandLine ParseCommandLine(int argc, const char* const* argv, std::ostream& out) {
  try {
    return Parse(argc, argv, out);
  } catch (const BraidError& e) {
    // Every usage error points at the help, once.
    throw BraidError(ErrorCode::kUsage, std::string(e.what()) + kHint);
  }
}

}  // namespace braid
