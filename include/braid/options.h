#pragma once
/// Everything the command line (and later the config file) can set.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "braid/cipher.h"
#include "braid/direct_io.h"
#include "braid/endpoint.h"
#include "braid/fsync_policy.h"
#include "braid/hash_algorithm.h"
#include "braid/limits.h"
#include "braid/path_filter_rule.h"
#include "braid/topology.h"

namespace braid {

/// By default -s auto:1-64: the controller beats every fixed count as a default on an
/// emulated WAN (docs/benchmarks.md), and on a LAN it stays at 2-4 streams.
constexpr int kDefaultStreams = kMaxStreams;
constexpr std::uint32_t kDefaultBlockSize = 1u << 20;
constexpr std::uint32_t kMinBlockSize = 4096;
constexpr std::uint32_t kMaxBlockSize = 64u << 20;
/// Seconds without progress in the data phase before a copy fails as stalled.
constexpr double kDefaultStallTimeout = 120;
/// Times a copy that started is run again after a failure the network caused.
constexpr int kDefaultRetries = 3;
constexpr int kMaxRetries = 100;
/// Seconds an end has to connect, log in and answer its first message.
constexpr double kDefaultConnectTimeout = 30;
/// Destinations of one copy (--to, --to-file): each is a session of its own
/// (two servers, a thread in the agent), so the list is bounded.
constexpr std::size_t kMaxDestinations = 256;

/// -N's bits (Options::pipes).
constexpr std::uint8_t kPipeIn = 1;
constexpr std::uint8_t kPipeOut = 2;

struct Options {
  std::vector<Endpoint> sources;
  bool hard_links = false;    ///< -H: files linked to each other arrive linked
  std::uint8_t direct = 0;    ///< -u: kDirectReads | kDirectWrites
  bool sparse_zeros = false;  ///< --sparse: runs of zeros become holes at the target
  /// -N/--pipes: kPipeIn, the SRC is a shell command whose output is the data;
  /// kPipeOut, the DST is a shell command the data is fed to.
  std::uint8_t pipes = 0;
  /// -R/--growing[=SEC]: a regular file is read to its end and then followed
  /// until it has not changed for this long; 0 = off.
  double growing = 0;
  /// --exclude / --include / --exclude-from / --include-from, in order.
  std::vector<PathFilterRule> filters{};
  Endpoint destination;
  /// --to / --to-file: a copy to each of these (docs/architecture.md, "A copy to
  /// many destinations"); empty for the one DST of `braid SRC... DST`.
  std::vector<Endpoint> destinations;
  Topology topology;  ///< --topology: how the data reaches `destinations`
  /// One hop of a chain or tree (agent/layout_copy), never from the command
  /// line: the data comes not from `sources` (which still say how many SRCs
  /// the target plan counts) but from what the sink at `follow_from` writes,
  /// through its feed `follow_token` (docs/protocol.md, "Forwarding").
  std::optional<Endpoint> follow_from;
  std::string follow_token;
  /// This copy's sink serves a feed under this token, for the hops that follow it.
  std::string forward_token;

  int streams = kDefaultStreams;                 ///< -s: 1..64 (with auto: the most, all connected)
  bool streams_auto = true;                      ///< -s auto[:MIN-MAX]; -s N turns it off
  int streams_min = 1;                           ///< -s auto:MIN-MAX
  bool polite = false;                           ///< --polite: yield when the RTT rises (-s auto)
  std::uint64_t window = 0;                      ///< -w: socket buffer bytes; 0 = kernel autotuning
  std::uint32_t block_size = kDefaultBlockSize;  ///< -B
  double progress_interval = 0;                  ///< -P seconds; 0 = bar on a TTY, else silent
  HashAlgorithm hash = HashAlgorithm::kNone;     ///< -E NAME / -e (md5)
  Cipher cipher = Cipher::kAes128Gcm;            ///< --cipher; kNone = clear frames
  bool force = false;                            ///< -f
  bool recursive = false;                        ///< -r
  bool preserve = false;                         ///< -p
  std::string remote_command = "braid";          ///< -T
  std::vector<std::string> identity_files;       ///< -i
  int ssh_port = 0;                              ///< --ssh-port; 0 = ~/.ssh/config or 22
  int verbose = 0;                               ///< -v, repeatable
  std::string log_file;                          ///< -l: stderr's lines appended here too
  double time_limit = 0;                         ///< -t: seconds until the copy stops; 0 = none
  bool accept_new_host_key = false;              ///< --accept-new-host-key
  /// --deploy: upload this braid's portable build where a remote braid is
  /// missing or of another protocol version (launch/deploy).
  bool deploy = false;
  std::optional<std::uint64_t> size;            ///< --size: bytes to read from a device source
  std::string ssh_command;                      ///< -S: ssh client command; empty = libssh2
  double stall_timeout = kDefaultStallTimeout;  ///< --stall-timeout seconds; 0 = off
  /// --connect-timeout seconds; 0: not given, so ~/.ssh/config's ConnectTimeout
  /// bounds the ssh connection and kDefaultConnectTimeout the rest.
  double connect_timeout = 0;
  /// connect_timeout, or the default when not given: the start's bound.
  double connect_timeout_seconds() const {
    return connect_timeout > 0 ? connect_timeout : kDefaultConnectTimeout;
  }
  /// connect_timeout_seconds() for the deadlines it sets.
  std::chrono::milliseconds connect_timeout_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::duration<double>(connect_timeout_seconds()));
  }
  int retries = kDefaultRetries;  ///< --retry: attempts after a resumable failure
  ListLimits list_limits;         ///< --max-entries, --max-list-bytes: the caps on the file list

  // The everyday features (rate, marking, compression, reports, config).
  std::uint64_t rate = 0;          ///< -x: bytes/s over all streams; 0 = unlimited
  int tos = -1;                    ///< -q: IP_TOS / IPV6_TCLASS byte; -1 = leave alone
  std::string congestion_control;  ///< --cc: TCP_CONGESTION name; empty = default
  int compress_level = -1;         ///< -c [LEVEL]: zlib level 1-9; -1 = off
  bool ordered = false;            ///< -o: write in order even to a seekable file
  bool follow_symlinks = false;    ///< -L: copy what links point to, not the links
  std::string data_host;           ///< --data-host: address the sink listens on
  std::string config_file;         ///< -C: defaults file; empty = ~/.config/braid/config
  bool json = false;               ///< --json: one JSON report on stdout at the end
  bool json_stream = false;        ///< --json-stream: one JSON event a line on stdout, as it runs
  std::string report_csv;          ///< --report-csv FILE: per-interval, per-stream rows

  // Resume (docs/resume.md).
  bool append = false;      ///< -a: resume, and fail if there is nothing to resume
  bool no_resume = false;   ///< --no-resume: discard partial state and start over
  bool verify_kept = true;  ///< --no-verify-kept clears it
  /// Files already under their final names: --delta compares every one block
  /// by block, even when size and mtime match; -O skips every one; --size-only
  /// skips those of the source's size. At most one of them.
  bool delta = false;
  bool omit_existing = false;
  bool size_only = false;
  bool remove_partial = false;  ///< --remove-partial: delete partial state on failure

  /// -y none|d|dd: what a file's rename waits for (docs/braid.1).
  FsyncPolicy fsync = FsyncPolicy::kData;

  // Networks (docs/networks.md).
  bool reverse = false;        ///< -z: the source listens, the sink connects
  std::uint16_t port_min = 0;  ///< -Z A:B: listen only on these ports; 0 = any
  std::uint16_t port_max = 0;
  int family = 0;  ///< -4 / -6; 0 = either
};

}  // namespace braid
