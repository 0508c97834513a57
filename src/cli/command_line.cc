#include "cli/command_line.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <CLI/CLI.hpp>
#include <cctype>
#include <charconv>
#include <climits>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "braid/error.h"
#include "cli/config_file.h"
#include "cli/destination_list.h"
#include "cli/endpoint_parser.h"
#include "cli/filter_rules.h"
#include "cli/help_format.h"
#include "cli/list_file.h"
#include "cli/qos_parser.h"
#include "cli/quote.h"
#include "cli/size_parser.h"
#include "cli/stream_count.h"
#include "cli/topology_parser.h"

#ifndef BRAID_VERSION
#error "BRAID_VERSION must be defined by the build (see src/CMakeLists.txt)"
#endif

namespace braid {
namespace {

constexpr char kHint[] = " (see braid --help)";
constexpr double kMinProgressSeconds = 0.01;  ///< below this the reports are a busy loop
constexpr double kMaxProgressSeconds = 86400;
constexpr double kMinStallSeconds = 0.1;  ///< below this, Progress's 200 ms cadence would trip it
constexpr std::size_t kMaxCongestionControlName = 15;  ///< TCP_CA_NAME_MAX less the NUL

constexpr char kDescription[] =
    "braid " BRAID_VERSION ": copy files and data sets over many parallel TCP streams.";

/// Wrapped by hand to the help's 80 columns (a unit test holds it to that).
constexpr char kFooter[] = R"(Each SRC and DST is one of:
  user@host:path      a path on a remote host, reached over ssh (user@ optional)
  user@[v6addr]:path  the same, with an IPv6 address in brackets
  host:               the remote home directory
  path                a local path; a '/' before the first ':' keeps it local
                      (./a:b)
  -                   stdin as SRC, stdout as DST
With several sources DST is a directory. A local-to-local copy runs the same
protocol through a child 'braid --serve' over pipes, exactly as a remote copy
would over ssh. Between two remote hosts the data goes directly from one to the
other.

SIZE values are bytes with an optional K, M, G or T suffix (binary: 1K = 1024),
e.g. 64K, 16M, 1.5G, 4KiB.

Examples:
  braid -s 8 -P 2 -e big.dat user@dtn:/data/
  braid -r run42/ user@dtn.example.org:/data/run42/
  braid siteA:/f siteB:/dir/
  braid /dev/zero /dev/null --size 10G
  braid -r -e run42/ --to dtn1:/data/ --to dtn2:/data/ --to-file sites)";

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

/// --retry: a whole number of retries, 0 to kMaxRetries.
int ParseRetries(const std::string& text) {
  int value = -1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0 || value > kMaxRetries) {
    Fail("--retry must be a whole number from 0 to " + std::to_string(kMaxRetries) + ", got " +
         Quote(text));
  }
  return value;
}

/// --stall-timeout: 0 turns the check off; otherwise seconds, fractions allowed.
double ParseStallTimeout(const std::string& text) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  // The negated test also rejects NaN.
  if (text.empty() || ec != std::errc() || ptr != end ||
      !(value == 0 || (value >= kMinStallSeconds && value <= kMaxProgressSeconds))) {
    Fail("--stall-timeout must be 0 (off) or a number of seconds from 0.1 to 86400, got " +
         Quote(text));
  }
  return value;
}

/// A numeric address to listen on; brackets around an IPv6 literal are dropped, and a
/// zone ("fe80::1%eth0") is kept for the listener. Names are refused on purpose: a DNS
/// lookup is what picks the wrong interface on multi-homed hosts.
std::string ParseDataHost(const std::string& text) {
  std::string address = text;
  if (address.size() > 2 && address.front() == '[' && address.back() == ']') {
    address = address.substr(1, address.size() - 2);
  }
  std::string without_zone = address.substr(0, address.find('%'));
  in_addr v4{};
  in6_addr v6{};
  bool v4_ok = address == without_zone && inet_pton(AF_INET, address.c_str(), &v4) == 1;
  bool v6_ok = inet_pton(AF_INET6, without_zone.c_str(), &v6) == 1;
  if (!v4_ok && !v6_ok) {
    Fail("--data-host must be a numeric IPv4 or IPv6 address such as 192.0.2.7 or ::1, got " +
         Quote(text));
  }
  return address;
}

/// The raw option values as CLI11 collects them; converted and checked afterwards so every
/// error names its option in our words.
struct RawArgs {
  std::string streams;
  std::string window;
  std::string block_size;
  std::string progress;
  std::string hash;
  std::string cipher;
  std::string direct;   ///< -u s|t|st
  std::string pipes;    ///< -N i|o|io
  std::string growing;  ///< -R/--growing[=SEC]
  bool md5_short = false;
  std::string ssh_port;
  std::string size;
  std::string rate;
  std::string serve_fd;
  int compress = -1;
  std::string qos;
  std::string congestion_control;
  std::string data_host;
  std::string stall_timeout;
  std::string time_limit;
  std::string connect_timeout;
  std::string retry;
  std::string max_entries;
  std::string max_list_bytes;
  bool serve = false;
  bool version = false;
  bool very_verbose = false;  ///< -V
  bool keep = false;
  bool no_verify_kept = false;
  std::string fsync;
  std::string port_range;
  bool ipv4 = false;
  bool ipv6 = false;
  std::vector<std::string> paths;
  std::vector<std::string> to;  ///< --to, repeatable
  std::string to_file;
  std::string infiles;      ///< -I FILE: sources a line
  std::string files0_from;  ///< --files0-from FILE: sources NUL-separated
  std::string topology;
  std::vector<std::string> exclude;  ///< --exclude, repeatable; ordered by GivenFilters
  std::vector<std::string> include;
  std::vector<std::string> exclude_from;
  std::vector<std::string> include_from;
};

/// What is copied and how it lands.
void DefineCopyingOptions(CLI::App& app, RawArgs& raw, Options& options) {
  app.option_defaults()->group("Copying");
  app.add_flag("-r,--recursive", options.recursive, "Copy directories recursively");
  app.add_flag("-L,--follow-symlinks", options.follow_symlinks,
               "With -r, copy what symbolic links point to instead of the links");
  app.add_flag("-p,--preserve", options.preserve, "Preserve mode and modification times");
  app.add_flag("-R{5},--growing{5}", raw.growing,
               "Copy files that are still being written: read each to its end, then follow it "
               "until it has not changed for SEC seconds (default 5)")
      ->option_text("[=SEC]");
  app.add_flag("-H,--hard-links", options.hard_links,
               "Keep hard links: files of the copy that are one file at the source (one inode) "
               "arrive as one file with as many names");
  // Long only: -S is the ssh command, as in bbcp.
  app.add_flag("--sparse", options.sparse_zeros,
               "Also make runs of zeros holes at the target (a file's own holes are always kept "
               "as holes, never sent)");
  app.add_flag("-f,--force", options.force,
               "Also replace what is not a regular file (a link where a file goes) and copy "
               "complete files again; a file that differs is replaced without it");
  // --md5-check is the older spelling, kept so existing scripts and config files work.
  app.add_option("-E,--hash,--md5-check", raw.hash,
                 "Hash each whole file at both ends, compare, and print the lines md5sum, "
                 "sha256sum or xxh128sum would: md5, sha256 (fast where the CPU has SHA "
                 "instructions) or xxh128 (fastest; not cryptographic)")
      ->type_name("NAME");
  app.add_flag("-e", raw.md5_short, "Same as -E md5");
  app.add_option("--size", raw.size, "Bytes to read from a device source such as /dev/zero")
      ->type_name("SIZE");
  app.add_flag("-o,--order", options.ordered,
               "Write blocks in order (automatic for pipes, FIFOs and stdout)");
  app.add_option("-y,--fsync", raw.fsync,
                 "What a file's rename waits for: none (not the disk), d (its data, the "
                 "default), dd (data and directory entries)")
      ->type_name("none|d|dd");
  app.add_option("--max-entries", raw.max_entries,
                 "Refuse a file list of more than N entries (default 10000000)")
      ->type_name("N");
  app.add_option("--max-list-bytes", raw.max_list_bytes,
                 "Refuse a file list larger than SIZE, names included (default 4G)")
      ->type_name("SIZE");
}

/// Copying, continued: what to copy and where to (lists, filters, destinations).
void DefineSelectionOptions(CLI::App& app, RawArgs& raw, Options& options) {
  // One value an occurrence, every occurrence kept: the option may be given again.
  const auto repeatable = [&](const char* name, std::vector<std::string>& into, const char* help,
                              const char* type) {
    app.add_option(name, into, help)
        ->type_name(type)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
  };
  repeatable("--to", raw.to,
             "Copy to this destination too; repeatable. With --to every operand is a SRC, and "
             "each destination gets its own session",
             "DST");
  app.add_option("--to-file", raw.to_file,
                 "Copy to each destination in FILE, one [user@]host:path a line (# comments)")
      ->type_name("FILE");
  app.add_option("-I,--infiles", raw.infiles,
                 "Copy the sources FILE lists too, one a line (# and ; lines skipped; - reads "
                 "stdin), before any SRC operand (bbcp's -I)")
      ->type_name("FILE");
  app.add_option("--files0-from", raw.files0_from,
                 "As -I, with the sources NUL-separated (find -print0)")
      ->type_name("FILE");
  repeatable("--exclude", raw.exclude,
             "Leave out what a directory SRC holds where PATTERN matches ('*.tmp', 'cache/', "
             "'/run42/raw'); repeatable, the first matching --exclude/--include decides "
             "(man braid, FILTERS)",
             "PATTERN");
  repeatable("--include", raw.include,
             "Keep what PATTERN matches even where a later --exclude would leave it out",
             "PATTERN");
  repeatable("--exclude-from", raw.exclude_from,
             "An --exclude for each line of FILE (# and ; lines skipped; - reads stdin)", "FILE");
  repeatable("--include-from", raw.include_from, "An --include for each line of FILE", "FILE");
  app.add_option("--topology", raw.topology,
                 "How the data reaches many destinations: star (the source sends to each), "
                 "chain (the source to the first, each to the next, block by block as it "
                 "arrives), tree:K (each node to at most K); auto, the default, the one a model "
                 "predicts fastest: the chain, in RTT order, when hosts' links are alike")
      ->type_name("NAME");
  app.add_option("-C,--config", options.config_file,
                 "Default options, one \"option = value\" a line (default "
                 "~/.config/braid/config)")
      ->type_name("FILE");
}

/// How the data moves: streams, sizes, rate, sealing and the network's view of it.
void DefineNetworkOptions(CLI::App& app, RawArgs& raw, Options& options) {
  app.option_defaults()->group("Streams and network");
  app.add_option("-s,--streams", raw.streams,
                 "Parallel TCP data streams: a fixed count, 1 to 64, or 'auto' or 'auto:MIN-MAX' "
                 "to let braid pick how many carry data from RTT and throughput (default "
                 "auto:1-64; auto connects no more streams than the copy has blocks)")
      ->type_name("N");
  app.add_flag("--polite", options.polite,
               "With -s auto (the default): also use fewer streams, and slow down, when the RTT "
               "rises above its floor, so the copy yields to other traffic");
  app.add_option("-w,--window", raw.window,
                 "Socket buffer size per stream (default: kernel autotuning)")
      ->type_name("SIZE");
  app.add_option("-B,--blocksize", raw.block_size, "Block size, 4K to 64M (default 1M)")
      ->type_name("SIZE");
  app.add_option("-x,--rate", raw.rate, "Limit the total rate, e.g. 50M (bytes/s) or 800Mbit")
      ->type_name("RATE");
  app.add_flag("-c,--compress{1}", raw.compress,
               "Compress blocks with zlib; --compress=N picks the level, 1-9 (default 1)")
      ->option_text("[=N]");
  app.add_option("-u,--direct", raw.direct,
                 "Go around the page cache (O_DIRECT): s the source's reads, t the target's "
                 "writes, st both; where a file system refuses, through the cache with a warning "
                 "(bbcp's -u)")
      ->type_name("s|t|st");
  app.add_option("-N,--pipes", raw.pipes,
                 "Programs at the ends (bbcp's -N): i, SRC is a shell command whose output is "
                 "copied; o, DST is a shell command the data is fed to; io both "
                 "(-N io 'tar cf - dir' host:'tar xf -')")
      ->type_name("i|o|io");
  app.add_option("--cipher", raw.cipher,
                 "Encrypt and authenticate every data block: aes-128-gcm (default), aes-256-gcm, "
                 "chacha20-poly1305 (CPUs without AES instructions), or none (clear blocks with a "
                 "checksum, for closed networks)")
      ->type_name("NAME");
  app.add_option("-q,--qos", raw.qos,
                 "Mark data packets: 0-255, 0xNN, qbss, le, ef, af11..af43, cs0..cs7")
      ->type_name("VALUE");
  app.add_option("--cc", raw.congestion_control,
                 "TCP congestion control for data streams, e.g. cubic, bbr, lp")
      ->type_name("NAME");
  app.add_option("--data-host", raw.data_host,
                 "Numeric IPv4 or IPv6 address the receiving end listens on for data")
      ->type_name("ADDR");
  app.add_flag("-z,--reverse", options.reverse,
               "The source listens and the sink connects (for a sink that cannot accept "
               "inbound connections)");
  app.add_option("-Z,--port-range", raw.port_range,
                 "Listen for data only on ports A to B (for firewalls that open a range)")
      ->type_name("A:B");
  app.add_flag("-4,--ipv4", raw.ipv4, "Data streams over IPv4 only");
  app.add_flag("-6,--ipv6", raw.ipv6, "Data streams over IPv6 only");
  app.add_option("--connect-timeout", raw.connect_timeout,
                 "Fail (exit 3) if an end is not up and answering within SEC seconds (default 30)")
      ->type_name("SEC");
  app.add_option("--stall-timeout", raw.stall_timeout,
                 "Fail (exit 15) when no data moves for SEC seconds; 0 = never (default 120)")
      ->type_name("SEC");
  app.add_option("-t,--time-limit", raw.time_limit,
                 "Stop after SEC seconds, keeping what arrived for the same command to resume "
                 "(exit 142; bbcp's -t)")
      ->type_name("SEC");
}

/// What a broken copy leaves, and how the next run uses it.
void DefineResumeOptions(CLI::App& app, RawArgs& raw, Options& options) {
  app.option_defaults()->group("Resume");
  app.add_option("--retry", raw.retry,
                 "Resume by itself up to N times after the network broke a started copy "
                 "(default 3)")
      ->type_name("N");
  app.add_flag("-a,--append", options.append,
               "Resume an earlier broken copy; fail if there is none (resuming is the default)");
  app.add_flag("--no-resume", options.no_resume,
               "Ignore what an earlier broken copy left and start over");
  app.add_flag("--no-verify-kept", raw.no_verify_kept,
               "On resume, trust kept blocks without re-reading them against the journal");
  app.add_flag("--delta", options.delta,
               "Compare every file already there block by block, even one whose size and "
               "mtime match; only blocks that differ are sent");
  app.add_flag("-O,--omit-existing", options.omit_existing,
               "Skip every file already there, whatever it holds (bbcp's -O)");
  app.add_flag("--size-only", options.size_only,
               "Skip files already there with the source's size, without comparing them");
  app.add_flag("-k,--keep", raw.keep, "Keep partial files on failure (the default; for bbcp)");
  app.add_flag("--remove-partial", options.remove_partial,
               "On failure, delete partial files and journals instead of keeping them");
}

/// What braid says, and where.
void DefineOutputOptions(CLI::App& app, RawArgs& raw, Options& options) {
  app.option_defaults()->group("Output");
  app.add_flag("-v,--verbose", options.verbose, "More detail on stderr; repeatable (-vv)");
  app.add_flag("-V", raw.very_verbose, "Very verbose, as -vv (bbcp's -V)");
  app.add_option("-l,--log", options.log_file,
                 "Append every line braid prints on stderr (not the live bar) to FILE too, "
                 "each after its UTC time (bbcp's -l)")
      ->type_name("FILE");
  app.add_option("-P,--progress", raw.progress,
                 "Print a progress line every SEC seconds (default: bar on a TTY)")
      ->type_name("SEC");
  app.add_flag("--json", options.json,
               "Print one JSON report on stdout at the end (iperf3-like; digest lines go to "
               "stderr)");
  app.add_flag("--json-stream", options.json_stream,
               "Print one JSON event a line on stdout as the copy runs: start, interval, "
               "file, retry, error, end");
  app.add_option("--report-csv", options.report_csv,
                 "Write a CSV row per stream per interval (-P SEC, default 1 s) to FILE")
      ->type_name("FILE");
  app.add_flag("--version", raw.version,
               "Print the version, the protocol version and the libraries' versions, and exit");
}

/// How remote hosts are reached.
void DefineSshOptions(CLI::App& app, RawArgs& raw, Options& options) {
  app.option_defaults()->group("ssh");
  app.add_option("-T,--remote-cmd", options.remote_command,
                 "Command that runs braid on remote hosts (default braid)")
      ->type_name("CMD");
  app.add_option("-S,--ssh-command", options.ssh_command,
                 "Reach remote hosts with this ssh client instead of libssh2, e.g. 'ssh -J jump'")
      ->type_name("CMD");
  app.add_option("-i,--identity", options.identity_files, "ssh private key; repeatable")
      ->type_name("FILE")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);  // "-i key src dst" must leave src and dst alone
  app.add_option("--ssh-port", raw.ssh_port, "ssh port (default: ~/.ssh/config or 22)")
      ->type_name("N");
  app.add_flag("--accept-new-host-key", options.accept_new_host_key,
               "Trust and remember the key of a host not yet in known_hosts");
  app.add_flag("--deploy", options.deploy,
               "Where a remote host has no braid of this protocol, upload this braid's "
               "portable build to ~/.cache/braid/ there and run it");
}

/// Registers every option, in --help's sections (cli/help_format.h); flags
/// that need no conversion go straight into `options`.
void DefineOptions(CLI::App& app, RawArgs& raw, Options& options) {
  app.formatter(MakeHelpFormatter());
  app.set_help_flag("-h,--help", "Print this help and exit")->group("Output");
  // Repeating a single-valued option overrides it, as in most Unix tools.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  DefineCopyingOptions(app, raw, options);
  DefineSelectionOptions(app, raw, options);
  DefineNetworkOptions(app, raw, options);
  DefineResumeOptions(app, raw, options);
  DefineOutputOptions(app, raw, options);
  DefineSshOptions(app, raw, options);

  // Hidden: how the agent starts the far end of a transfer.
  app.option_defaults()->group("");
  auto* serve = app.add_flag("--serve", raw.serve, "Serve the control protocol");
  app.add_option("--serve-fd", raw.serve_fd, "Control protocol on this fd")->needs(serve);
  app.add_option("paths", raw.paths, "SRC... DST")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  app.description(kDescription);
  app.footer(kFooter);
}

/// -q, --cc and --data-host: how the data streams look on the network.
void ApplyNetworkOptions(const CLI::App& app, const RawArgs& raw, Options& options) {
  if (app.count("--qos") > 0) options.tos = ParseQos(raw.qos);
  if (app.count("--cc") > 0) {
    const std::string& name = raw.congestion_control;
    // The kernel's TCP_CA_NAME_MAX is 16 with the NUL; the charset keeps the name
    // safe to echo and to pass through the control protocol.
    bool ok = !name.empty() && name.size() <= kMaxCongestionControlName;
    for (char c : name) {
      ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
    }
    if (!ok) {
      Fail(
          "--cc must be a congestion control name of 1 to 15 letters, digits, '_' or '-', "
          "got " +
          Quote(name));
    }
    options.congestion_control = name;
  }
  if (app.count("--data-host") > 0) options.data_host = ParseDataHost(raw.data_host);
}

/// -Z A:B: 1 <= A <= B <= 65535.
std::pair<std::uint16_t, std::uint16_t> ParsePortRange(const std::string& text) {
  auto colon = text.find(':');
  auto number = [](std::string_view part) -> int {
    int v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || part.empty() || v < 1 ||
        v > 65535) {
      return -1;
    }
    return v;
  };
  int lo = colon == std::string::npos ? -1 : number(std::string_view(text).substr(0, colon));
  int hi = colon == std::string::npos ? -1 : number(std::string_view(text).substr(colon + 1));
  if (lo < 0 || hi < 0 || lo > hi) {
    Fail("-Z/--port-range must be A:B with 1 <= A <= B <= 65535, got " + Quote(text));
  }
  return {static_cast<std::uint16_t>(lo), static_cast<std::uint16_t>(hi)};
}

/// -y none|d|dd (bbcp's letters).
FsyncPolicy ParseFsyncPolicy(const std::string& text) {
  if (text == "none") return FsyncPolicy::kNone;
  if (text == "d") return FsyncPolicy::kData;
  if (text == "dd") return FsyncPolicy::kDataAndDirs;
  Fail("-y/--fsync must be none, d (data) or dd (data and directory entries), got " + Quote(text));
}

/// -s, -w, -B, -x, -c, --size: how much moves how, range-checked.
void ApplyTransferSizes(const CLI::App& app, const RawArgs& raw, Options& options) {
  auto given = [&app](const char* name) { return app.count(name) > 0; };
  if (given("--streams")) {
    StreamCount count = ParseStreamCount(raw.streams);
    options.streams = count.max;
    options.streams_min = count.min;
    options.streams_auto = count.automatic;
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
  if (given("--size")) options.size = ParseSizeFor(raw.size, "--size");
  if (given("--max-entries")) {
    options.list_limits.max_entries =
        static_cast<std::uint64_t>(ParseIntInRange(raw.max_entries, 1, INT_MAX, "--max-entries"));
  }
  if (given("--max-list-bytes")) {
    options.list_limits.max_list_bytes = ParseSizeFor(raw.max_list_bytes, "--max-list-bytes");
    if (options.list_limits.max_list_bytes == 0) Fail("--max-list-bytes must be at least 1");
  }
  if (given("--rate")) {
    try {
      options.rate = ParseRate(raw.rate);
    } catch (const BraidError& e) {
      Fail(std::string("-x/--rate: ") + e.what());
    }
    // 0 would mean "unlimited" on the wire; a user who typed it meant something else.
    if (options.rate == 0) Fail("-x/--rate must be at least 1 byte/s, got " + Quote(raw.rate));
  }
  if (given("--compress")) {
    if (raw.compress < 1 || raw.compress > 9) {
      Fail("-c/--compress level must be from 1 to 9, got " + std::to_string(raw.compress));
    }
    options.compress_level = raw.compress;
  }
}

/// -E/-e: one hash algorithm, named once.
void ApplyHash(const CLI::App& app, const RawArgs& raw, Options& options) {
  if (app.count("--hash") > 0) {
    std::optional<HashAlgorithm> hash = ParseHashName(raw.hash);
    if (!hash) Fail("-E/--hash takes " + std::string(kHashChoices) + ", got " + Quote(raw.hash));
    options.hash = *hash;
  }
  if (raw.md5_short) {
    if (options.hash != HashAlgorithm::kNone && options.hash != HashAlgorithm::kMd5) {
      Fail("-e means -E md5; it cannot be combined with -E " + std::string(HashName(options.hash)));
    }
    options.hash = HashAlgorithm::kMd5;
  }
}

/// --cipher: how the data streams are sealed.
void ApplyCipher(const CLI::App& app, const RawArgs& raw, Options& options) {
  if (app.count("--cipher") == 0) return;
  std::optional<Cipher> cipher = ParseCipherName(raw.cipher);
  if (!cipher) Fail("--cipher takes " + std::string(kCipherChoices) + ", got " + Quote(raw.cipher));
  options.cipher = *cipher;
}

/// -u s|t|st: which ends read or write around the page cache.
void ApplyDirect(const CLI::App& app, const RawArgs& raw, Options& options) {
  if (app.count("--direct") == 0) return;
  const std::string& v = raw.direct;
  if (v == "s") {
    options.direct = kDirectReads;
  } else if (v == "t") {
    options.direct = kDirectWrites;
  } else if (v == "st" || v == "ts") {
    options.direct = kDirectReads | kDirectWrites;
  } else {
    Fail("-u/--direct takes s (the source's reads), t (the target's writes) or st, got " +
         Quote(v));
  }
}

/// -N i|o|io: which operands are shell commands.
void ApplyPipes(const CLI::App& app, const RawArgs& raw, Options& options) {
  if (app.count("--pipes") == 0) return;
  const std::string& v = raw.pipes;
  if (v == "i") {
    options.pipes = kPipeIn;
  } else if (v == "o") {
    options.pipes = kPipeOut;
  } else if (v == "io" || v == "oi") {
    options.pipes = kPipeIn | kPipeOut;
  } else {
    Fail("-N/--pipes takes i (SRC is a command), o (DST is a command) or io, got " + Quote(v));
  }
}

/// With -N: one command's output is one stream, and a command is not a tree.
void CheckPipes(const Options& options) {
  if (options.pipes == 0) return;
  if (options.recursive) Fail("-N and -r do not go together: a command's output is one stream");
  if ((options.pipes & kPipeIn) != 0) {
    if (options.sources.size() != 1) Fail("-N i takes exactly one SRC, the command to read from");
    if (options.sources[0].path.empty() || options.sources[0].is_stdio()) {
      Fail("-N i: SRC must be a command, not " + Quote(options.sources[0].path));
    }
  }
  if ((options.pipes & kPipeOut) != 0 &&
      (options.destination.path.empty() || options.destination.is_stdio())) {
    Fail("-N o: DST must be a command, not " + Quote(options.destination.path));
  }
}

/// -T, -S, -i, --ssh-port: how the remote ends are reached.
void ApplySshOptions(const CLI::App& app, const RawArgs& raw, Options& options) {
  if (options.remote_command.empty()) Fail("-T/--remote-cmd must not be empty");
  if (app.count("--ssh-command") > 0 &&
      options.ssh_command.find_first_not_of(" \t") == std::string::npos) {
    Fail("-S/--ssh-command needs a command, such as 'ssh -J jumphost'");
  }
  for (const std::string& file : options.identity_files) {
    if (file.empty()) Fail("-i/--identity needs a file name");
  }
  if (app.count("--ssh-port") > 0) {
    options.ssh_port = ParseIntInRange(raw.ssh_port, 1, 65535, "--ssh-port");
  }
}

/// Converts and range-checks what CLI11 collected. Presence is taken from `app`, so an
/// explicit empty value ("-s ''") is an error rather than the default.
void ApplyRaw(const CLI::App& app, const RawArgs& raw, Options& options) {
  auto given = [&app](const char* name) { return app.count(name) > 0; };
  ApplyTransferSizes(app, raw, options);
  ApplyHash(app, raw, options);
  ApplyCipher(app, raw, options);
  ApplyDirect(app, raw, options);
  ApplyPipes(app, raw, options);
  ApplySshOptions(app, raw, options);
  if (given("--progress")) options.progress_interval = ParseSeconds(raw.progress, "-P/--progress");
  if (given("--stall-timeout")) options.stall_timeout = ParseStallTimeout(raw.stall_timeout);
  if (given("--retry")) options.retries = ParseRetries(raw.retry);
  if (given("--time-limit")) options.time_limit = ParseSeconds(raw.time_limit, "-t/--time-limit");
  if (given("--growing")) {
    options.growing = ParseSeconds(raw.growing, "-R/--growing");
    // Past an hour of quiet a file is finished; the wire's bound says so too.
    if (options.growing > 3600) Fail("-R/--growing takes at most 3600 seconds, got " + raw.growing);
  }
  if (given("--connect-timeout")) {
    options.connect_timeout = ParseSeconds(raw.connect_timeout, "--connect-timeout");
  }
  if (options.append && options.no_resume) Fail("-a/--append and --no-resume contradict");
  if (options.json && options.json_stream) {
    Fail("--json and --json-stream both print on stdout: choose one");
  }
  if (options.polite && !options.streams_auto) Fail("--polite needs -s auto");
  if (raw.keep && options.remove_partial) Fail("-k/--keep and --remove-partial contradict");
  if (raw.no_verify_kept) options.verify_kept = false;
  if (int{options.delta} + int{options.omit_existing} + int{options.size_only} > 1) {
    Fail("--delta, -O/--omit-existing and --size-only contradict: choose one");
  }
  if (given("--fsync")) options.fsync = ParseFsyncPolicy(raw.fsync);
  if (raw.ipv4 && raw.ipv6) Fail("-4 and -6 contradict");
  options.family = raw.ipv4 ? 4 : raw.ipv6 ? 6 : 0;
  if (given("--port-range")) {
    auto [lo, hi] = ParsePortRange(raw.port_range);
    options.port_min = lo;
    options.port_max = hi;
  }
  ApplyNetworkOptions(app, raw, options);
}

/// The filter options in the order they were given, the config file's first:
/// the first rule that matches an entry decides, so order is meaning.
std::vector<GivenFilter> GivenFilters(const CLI::App& app, const RawArgs& raw) {
  struct Given {
    const CLI::Option* option;
    const std::vector<std::string>& values;
    GivenFilter::Kind kind;
    std::size_t next = 0;
  };
  std::vector<Given> options = {
      {app.get_option("--exclude"), raw.exclude, GivenFilter::Kind::kExclude},
      {app.get_option("--include"), raw.include, GivenFilter::Kind::kInclude},
      {app.get_option("--exclude-from"), raw.exclude_from, GivenFilter::Kind::kExcludeFrom},
      {app.get_option("--include-from"), raw.include_from, GivenFilter::Kind::kIncludeFrom},
  };
  std::vector<GivenFilter> given;
  for (const CLI::Option* parsed : app.parse_order()) {
    for (Given& o : options) {
      if (parsed == o.option && o.next < o.values.size()) {
        given.push_back({o.kind, o.values[o.next++]});
      }
    }
  }
  return given;
}

/// -I FILE and --files0-from FILE: the sources they list go before the
/// operands, which then may be the DST alone (or nothing, with --to).
void PrependListedSources(const CLI::App& app, RawArgs& raw) {
  // A list of a million names is about 100 MiB; a larger one is a mistake.
  constexpr std::size_t kMaxSourceListBytes = std::size_t{256} << 20;
  std::vector<std::string> listed;
  auto add = [&](const std::string& file, const char* option, bool nul_separated) {
    if (file.empty()) Fail(std::string(option) + " needs a file name (- for stdin)");
    for (std::string& name :
         ParseSourceList(ReadListFile(file, option, kMaxSourceListBytes), nul_separated, file)) {
      listed.push_back(std::move(name));
    }
  };
  if (raw.infiles == "-" && raw.files0_from == "-") Fail("-I and --files0-from both read stdin");
  // Else the last listed source would be taken for the DST and written over.
  const bool many = app.count("--to") > 0 || app.count("--to-file") > 0;
  if (raw.paths.empty() && !many) Fail("missing DST: -I/--files0-from list only sources");
  if (app.count("--infiles") > 0) add(raw.infiles, "-I/--infiles", false);
  if (app.count("--files0-from") > 0) add(raw.files0_from, "--files0-from", true);
  if (listed.empty()) Fail("the list of sources (-I/--files0-from) names none");
  raw.paths.insert(raw.paths.begin(), listed.begin(), listed.end());
}

/// --to, --to-file, --topology: a copy to many; every operand is then a SRC.
void ApplyDestinations(const CLI::App& app, const RawArgs& raw, Options& options) {
  if (raw.paths.empty()) Fail("missing SRC: with --to or --to-file every operand is a source");
  for (const std::string& path : raw.paths) options.sources.push_back(ParseEndpoint(path));
  for (const Endpoint& s : options.sources) {
    if (s.is_stdio()) Fail("'-' (stdin) can be read once, so it cannot go to several destinations");
  }
  // Each destination's copy has its own streams and intervals; one document
  // or file of them all is not built yet.
  if (options.json_stream) Fail("--json-stream does not work with --to yet; use --json");
  if (!options.report_csv.empty()) Fail("--report-csv does not work with --to yet");
  for (const std::string& to : raw.to) options.destinations.push_back(ParseEndpoint(to));
  if (app.count("--to-file") > 0) {
    if (raw.to_file.empty()) Fail("--to-file needs a file name");
    for (Endpoint& d : ParseDestinationList(ReadDestinationFile(raw.to_file), raw.to_file)) {
      options.destinations.push_back(std::move(d));
    }
  }
  CheckDestinations(options.destinations);
  if (app.count("--topology") > 0) options.topology = ParseTopology(raw.topology);
}

/// Parses `in_order` (the arguments after the program name).
CommandLine ParseArgs(const std::vector<std::string>& in_order, std::ostream& out) {
  // CLI11 wants the arguments last first.
  std::vector<std::string> args(in_order.rbegin(), in_order.rend());

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
  } catch (const std::logic_error&) {
    // CLI11 lets std::stoll's out_of_range escape for a flag given a huge
    // count (--compress=99999999999999999999), which would abort braid.
    Fail("a flag's value is out of range: give a small number (--compress=9) or true/false");
  }
  if (raw.version) {
    result.mode = CommandLine::Mode::kVersion;  // main prints it: the libraries are not ours
    return result;
  }
  if (raw.very_verbose) result.options.verbose += 2;

  ApplyRaw(app, raw, result.options);
  if (app.count("--config") > 0 && result.options.config_file.empty()) {
    Fail("-C/--config needs a file name");
  }
  if (app.count("--report-csv") > 0 && result.options.report_csv.empty()) {
    Fail("--report-csv needs a file name");
  }
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
  result.options.filters = CollectFilterRules(GivenFilters(app, raw));
  if (app.count("--infiles") > 0 || app.count("--files0-from") > 0) PrependListedSources(app, raw);
  if (app.count("--to") > 0 || app.count("--to-file") > 0) {
    if (result.options.pipes != 0) Fail("-N does not work with --to or --to-file yet");
    ApplyDestinations(app, raw, result.options);
    return result;
  }
  // Parsed so a typo fails here too (and in a config file); one DST has no layout.
  if (app.count("--topology") > 0) result.options.topology = ParseTopology(raw.topology);
  if (raw.paths.size() < 2) {
    Fail(raw.paths.empty() ? "missing SRC and DST" : "missing DST after SRC");
  }
  for (std::size_t i = 0; i + 1 < raw.paths.size(); ++i) {
    result.options.sources.push_back(ParseEndpoint(raw.paths[i]));
  }
  result.options.destination = ParseEndpoint(raw.paths.back());
  CheckPipes(result.options);
  // A retry runs the commands again from the start, and what they did (files
  // extracted, lines appended) would happen twice: only when asked for.
  if (result.options.pipes != 0 && app.count("--retry") == 0) result.options.retries = 0;
  return result;
}

/// The config file's settings as arguments, each checked on its own so that a
/// bad one is reported with its file and line, less those the command line
/// `cli_args` sets itself. Throws BraidError(kUsage).
std::vector<std::string> ConfigArguments(const std::string& path, const std::string& text,
                                         const std::vector<std::string>& cli_args,
                                         std::ostream& out) {
  CLI::App probe;
  RawArgs raw;
  Options unused;
  DefineOptions(probe, raw, unused);
  std::vector<std::string> reversed(cli_args.rbegin(), cli_args.rend());
  probe.parse(reversed);  // cannot throw: ParseArgs already accepted these
  std::vector<std::string> args;
  for (const ConfigEntry& entry : ParseConfigText(text, path)) {
    const std::string where = path + ":" + std::to_string(entry.line) + ": ";
    // Where a copy goes is the command's, not a default's: a config file that
    // named destinations would turn every copy into a copy to many.
    if (entry.key == "help" || entry.key == "version" || entry.key == "config" ||
        entry.key == "to" || entry.key == "to-file") {
      Fail(where + Quote(entry.key) + " cannot be set in a config file");
    }
    const CLI::Option* option = probe.get_option_no_throw("--" + entry.key);
    // Hidden options (--serve) are the agent's business, not the user's.
    if (option == nullptr || option->get_group().empty()) {
      Fail(where + "unknown option " + Quote(entry.key));
    }
    if (!entry.value && option->get_expected_min() > 0) {
      Fail(where + Quote(entry.key) + " needs a value (" + entry.key + " = VALUE)");
    }
    std::string arg = ConfigArgument(entry);
    try {
      ParseArgs({arg, "src", "dst"}, out);
    } catch (const BraidError& e) {
      Fail(where + e.what());
    }
    // The command line overrides the file. Taking the last value would do for
    // most options, but counted flags (-v, -c) add up; only lists such as -i
    // combine both.
    const bool is_list = option->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll &&
                         option->get_expected_min() > 0;
    if (option->count() > 0 && !is_list) {
      continue;
    }
    args.push_back(std::move(arg));
  }
  return args;
}

/// bbcp's `-c 5` and `-c5` are level 5; CLI11 would read the 5 as a source
/// (or as a flag -5), since -c's level is optional. A file named 5 is `./5`.
std::vector<std::string> SpellCompressLevels(const std::vector<std::string>& in) {
  auto level = [](const std::string& s) { return s.size() == 1 && s[0] >= '1' && s[0] <= '9'; };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == "--") {
      out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(i), in.end());
      break;
    }
    if (in[i] == "-c" && i + 1 < in.size() && level(in[i + 1])) {
      out.push_back("--compress=" + in[++i]);
    } else if (in[i].size() == 3 && in[i].rfind("-c", 0) == 0 && level(in[i].substr(2))) {
      out.push_back("--compress=" + in[i].substr(2));
    } else {
      out.push_back(in[i]);
    }
  }
  return out;
}

/// The command line on top of the config file: the file's settings come first,
/// less those the command line gives itself.
CommandLine Parse(int argc, const char* const* argv, std::ostream& out) {
  std::vector<std::string> args;
  for (int i = 1; i < argc && argv != nullptr; ++i) {
    if (argv[i] != nullptr) {
      args.emplace_back(argv[i]);
    }
  }
  args = SpellCompressLevels(args);
  // Parsed alone first: it names the config file, and a server (which takes its
  // settings from the agent) or --help must not depend on a file.
  CommandLine result = ParseArgs(args, out);
  if (result.mode != CommandLine::Mode::kCopy) {
    return result;
  }
  const bool explicit_file = !result.options.config_file.empty();
  std::string path = result.options.config_file;
  if (!explicit_file) {
    path = DefaultConfigPath(HomeDirectory());
  } else if (path.rfind("~/", 0) == 0) {  // --config=~/x is not expanded by the shell
    path = HomeDirectory() + path.substr(1);
  }
  if (path.empty()) {
    return result;
  }
  std::optional<std::string> text = ReadConfigFile(path, explicit_file);
  if (!text) {
    return result;
  }
  std::vector<std::string> combined = ConfigArguments(path, *text, args, out);
  if (combined.empty()) {
    return result;
  }
  combined.insert(combined.end(), args.begin(), args.end());
  try {
    return ParseArgs(combined, out);
  } catch (const BraidError& e) {
    Fail(std::string(e.what()) + " (with the settings in " + path + ")");
  }
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
