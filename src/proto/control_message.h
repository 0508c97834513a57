#pragma once
/// Control messages between the agent and each `braid --serve`. Pure codec:
/// every decode is bounds-checked and rejects what it does not understand.
/// docs/protocol.md describes the exchange.

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "braid/cipher.h"
#include "braid/direct_io.h"
#include "braid/error.h"
#include "braid/file_entry.h"
#include "braid/fsync_policy.h"
#include "braid/limits.h"
#include "braid/path_filter_rule.h"
#include "proto/resume_entry.h"
#include "security/crypto/file_digest.h"
#include "security/crypto/session_secret.h"

namespace braid {

/// 3: data frames sealed (TransferParams.cipher, docs/protocol.md). 4: files
/// already at the target compared block by block (resume list tag 2, "same"
/// frames, SinkOpen's `existing`, FileDone's `unchanged`). 5: remote paths as
/// scp reads them (SourceOpen's and SinkOpen's `remote_paths`), Progress's
/// `current_path`, Note. 6: braid's version in Hello and HelloReply, which
/// a peer of another version reads too. 7: SourceOpen's `filters`
/// (--exclude, --include). 8: the file entry's flags (a sparse file), hole
/// frames, the params' `sparse_zeros` (--sparse), SourceOpen's and SinkOpen's
/// `command` (-N), the resume list's compared piece size. 9: a sink that
/// forwards (SinkOpen's `forward`), a source that follows one (SourceOpen's
/// `follow`), and the feed between them (FeedHello, FeedPlan, FeedWait, FeedHave).
constexpr std::uint16_t kProtocolVersion = 9;
/// Hello and HelloReply of this protocol version and later begin alike (the
/// version, then braid's own version), so two versions can name each other.
constexpr std::uint16_t kFirstNamingVersion = 6;
/// The longest braid version a Hello or HelloReply may carry ("0.1.0").
constexpr std::size_t kMaxBraidVersionLength = 64;
constexpr std::uint32_t kControlMagic = 0x42524149;  // "BRAI"
constexpr std::size_t kMaxControlMessage = 16u << 20;
constexpr std::size_t kMaxPathLength = 4096;
/// -R's longest quiet time: an hour; a file quiet that long is finished.
constexpr std::uint32_t kMaxGrowingMs = 3600u * 1000u;
/// Error, Warning and Abort text. The encoder cuts longer text to this (on a
/// UTF-8 character boundary, ending in "..."), so a long message stays readable
/// instead of turning into a protocol error; the decoder refuses longer.
constexpr std::size_t kMaxTextLength = 8192;
/// Hello's label and HelloReply's host label (names for messages), cut and
/// refused as kMaxTextLength is.
constexpr std::size_t kMaxLabelLength = 256;
constexpr std::size_t kMaxAddresses = 16;
constexpr std::size_t kMaxEntriesPerList = 65536;
constexpr std::size_t kMaxSources = 4096;
/// Kept ranges in one SinkReady or SourceStart, over all files (16 bytes
/// each, so they fit a control message with room to spare). A sink with more
/// drops the rest: their data is simply sent again.
constexpr std::size_t kMaxKeptRanges = 1u << 19;
/// Files a resume list may name. Complete files travel as runs of ids, so a
/// re-run of a huge tree that is mostly in place stays small on the wire.
constexpr std::size_t kMaxResumeFiles = 1u << 24;
/// Block hashes of files compared at the target, in one SinkReady or
/// SourceStart, over all files (16 bytes each, 8 MiB). A sink with more
/// copies the rest whole.
constexpr std::size_t kMaxBlockHashes = 1u << 19;
/// A compared file's hashes cover pieces of this many bytes at least and at most.
constexpr std::uint32_t kMinComparePiece = 4096;
constexpr std::uint32_t kMaxComparePiece = 64u << 20;

enum class MessageType : std::uint16_t {
  kHello = 1,
  kHelloReply = 2,
  kSourceOpen = 3,
  kFileList = 4,
  kSinkOpen = 5,
  kSinkReady = 6,
  kSourceStart = 7,
  kProgress = 8,
  kFileDone = 9,
  kDone = 10,
  kError = 11,
  kAbort = 12,
  kBye = 13,
  kWarning = 14,
  kKept = 15,
  kSourceReady = 16,
  kSinkConnect = 17,
  kNote = 18,
  kFeedHello = 19,
  kFeedPlan = 20,
  kFeedWait = 21,
  kFeedHave = 22,
  kProbeOpen = 23,
  kProbeReady = 24,
  kProbeMeasure = 25,
  kProbeResult = 26,
};

/// The name a forwarding sink's feed goes by (docs/protocol.md, "Forwarding"):
/// 32 lowercase hex digits the agent draws at random; empty = none.
constexpr std::size_t kFeedTokenLength = 32;

/// This braid's version ("0.1.0"), which Hello and HelloReply carry.
std::string BraidVersion();

/// agent -> server: first message; the server answers HelloReply or Error.
/// A Hello of another protocol version is decoded only as far as its
/// braid_version (the rest is that version's business), so the server can
/// answer it with its own versions.
struct Hello {
  std::uint32_t magic = kControlMagic;
  std::uint16_t version = kProtocolVersion;
  std::string braid_version = BraidVersion();
  std::string label;  ///< how the user named this host; empty for a local end
};
/// A HelloReply of another protocol version is decoded as far as its
/// braid_version, as Hello is.
struct HelloReply {
  std::uint16_t version = kProtocolVersion;
  std::string braid_version = BraidVersion();
  std::string host_label;   ///< the server's node name, for messages
  std::string ssh_address;  ///< the address the ssh connection arrived on, if any
};
/// agent -> source server: describe these paths.
struct SourceOpen {
  std::vector<std::string> paths;
  bool recursive = false;
  std::optional<std::uint64_t> device_size;  ///< --size
  bool follow_symlinks = false;              ///< -L: copy what links inside a tree point to
  /// The paths were typed after `host:`: `~`, the home and globs as scp has them.
  bool remote_paths = false;
  /// -H: a file's second name is listed as a hard link to its first.
  bool hard_links = false;
  /// -R: regular files are listed as streams and followed at their end until
  /// unchanged for this many milliseconds; 0 = off.
  std::uint32_t growing_ms = 0;
  /// --exclude / --include, in order: what a directory SRC holds is listed
  /// only when these let it through (source/path_filter.h).
  std::vector<PathFilterRule> filters{};
  /// -N i: the one path is a shell command (`sh -c`) whose stdout is the data,
  /// listed as one stream named "pipe".
  bool command = false;
  /// A hop of a chain: not `paths` but what the sink on this host whose feed
  /// has this token writes, read as it arrives (`paths` then empty).
  std::string follow{};
};
/// source -> agent -> sink: the file list, in chunks; `last` ends it.
struct FileList {
  std::vector<FileEntry> entries;
  bool last = false;
  /// In the last chunk: source entries left out because they could not be
  /// read (a missing SRC, a file or directory that vanished or is unreadable);
  /// a Warning named each. 0 in the others.
  std::uint32_t not_listed = 0;
};
struct TransferParams {
  std::uint16_t streams = 4;
  std::uint32_t block_size = 1u << 20;
  std::uint64_t window = 0;
  HashAlgorithm hash = HashAlgorithm::kNone;  ///< -E: the end-to-end hash, or none
  Secret secret{};
  SessionId session{};
  std::uint64_t rate = 0;           ///< bytes/s over all streams; 0 = unlimited
  std::int16_t tos = -1;            ///< IP_TOS / IPV6_TCLASS; -1 = leave alone
  std::string congestion_control;   ///< TCP_CONGESTION; empty = the kernel's default
  std::int8_t compress_level = -1;  ///< zlib level 1..9; -1 = off
  bool ordered = false;             ///< write in order even to a seekable target
  /// -s auto: `streams` are connected, and a controller at the source decides
  /// how many of them (from min_streams up) carry data.
  bool auto_streams = false;
  std::uint16_t min_streams = 1;
  bool polite = false;  ///< --polite: the controller also yields when the RTT rises
  /// -z: the source listens and the sink connects (a sink behind a firewall
  /// that refuses inbound connections).
  bool reverse = false;
  /// -Z: the listening end binds a port in [port_min, port_max]; 0, 0 = any.
  std::uint16_t port_min = 0;
  std::uint16_t port_max = 0;
  std::uint8_t family = 0;  ///< -4 / -6: 4 or 6 only; 0 = either
  /// --cipher: how every data frame is sealed; kNone sends clear frames with XXH3.
  Cipher cipher = Cipher::kAes128Gcm;
  /// -u: kDirectReads and kDirectWrites (braid/options.h), O_DIRECT at the
  /// source's reads and the sink's writes, around the page cache.
  std::uint8_t direct = 0;
  /// --sparse: runs of zeros in regular files go as hole frames too, and
  /// become holes at the sink.
  bool sparse_zeros = false;
};
/// What a re-run does with the partial state an earlier run left.
enum class ResumeMode : std::uint8_t {
  kAuto = 0,     ///< resume what can be resumed, copy the rest
  kRequire = 1,  ///< -a: as kAuto, but fail when there is nothing to resume
  kOff = 2,      ///< --no-resume: discard partial state and start over
};
/// How the sink judges a regular file already under its final name.
enum class ExistingRule : std::uint8_t {
  /// Skipped when its size and mtime equal the source's (a copy made with
  /// -p) and no hash was asked for; otherwise compared block by block.
  kQuickCheck = 0,
  kDelta = 1,         ///< --delta: always compared block by block
  kOmitExisting = 2,  ///< -O: skipped whatever it holds
  kSizeOnly = 3,      ///< --size-only: skipped when the sizes are equal
};
/// agent -> sink server: where the files go; the sink listens and answers SinkReady.
struct SinkOpen {
  std::string target;
  std::uint16_t top_count = 1;
  bool force = false;
  bool preserve = false;
  bool recursive = false;
  std::string listen_address;  ///< empty: the address ssh arrived on
  TransferParams params;
  ResumeMode resume = ResumeMode::kAuto;
  bool verify_kept = true;   ///< re-read kept blocks against the journal before trusting them
  bool keep_partial = true;  ///< on failure keep partial files and journals for a re-run
  FsyncPolicy fsync = FsyncPolicy::kData;  ///< -y: what a rename waits for
  ExistingRule existing = ExistingRule::kQuickCheck;
  /// The target was typed after `host:`: `~` and the home as scp has them.
  bool remote_paths = false;
  /// -N o: `target` is a shell command (`sh -c`) whose stdin gets the data, in order.
  bool command = false;
  /// A hop of a chain: serve what arrives to the sources that follow this
  /// token (SourceOpen's `follow`); empty = none.
  std::string forward{};
};
/// With reverse (-z) the sink does not listen: addresses empty, port 0.
struct SinkReady {
  std::vector<std::string> addresses;
  std::uint16_t port = 0;
  std::vector<ResumeEntry> resume;  ///< files with something kept; the rest start from zero
  std::uint64_t kept_bytes = 0;     ///< bytes the source need not send
  std::uint32_t failed_blocks = 0;  ///< kept blocks that failed verification (re-sent)
};
/// agent -> source server: connect and send (with reverse: listen, answer
/// SourceReady, and send on the streams the sink connects).
struct SourceStart {
  std::vector<std::string> addresses;  ///< empty with reverse
  std::uint16_t port = 0;              ///< 0 with reverse
  TransferParams params;
  std::vector<ResumeEntry> resume;  ///< from SinkReady
  std::string listen_address;       ///< reverse: --data-host; empty = as a sink would choose
};
/// source -> agent (reverse): where the source listens.
struct SourceReady {
  std::vector<std::string> addresses;
  std::uint16_t port = 0;
};
/// agent -> sink (reverse): connect the data streams here.
struct SinkConnect {
  std::vector<std::string> addresses;
  std::uint16_t port = 0;
};
/// One data stream as the source sees it: its own byte count and TCP_INFO.
struct StreamSample {
  std::uint16_t index = 0;  ///< the stream's handshake index, < kMaxStreams
  std::uint64_t bytes = 0;  ///< payload bytes this stream has sent
  std::uint32_t rtt_us = 0;
  std::uint32_t min_rtt_us = 0;
  std::uint32_t cwnd = 0;           ///< segments
  std::uint32_t retrans = 0;        ///< segments retransmitted so far
  std::uint64_t delivery_rate = 0;  ///< bytes/s, the kernel's estimate
  std::uint64_t acked = 0;          ///< bytes the peer acknowledged (TCP_INFO bytes_acked)
};
/// At most one sample per data stream.
constexpr std::size_t kMaxStreamSamples = kMaxStreams;
/// server -> agent, a few times a second.
struct Progress {
  std::uint64_t bytes = 0;
  std::uint64_t files_done = 0;
  std::uint16_t streams = 0;
  std::vector<StreamSample> stream_samples;  ///< the source's streams; empty from a sink
  std::uint16_t active_streams = 0;          ///< streams carrying data (source; 0 from a sink)
  std::string controller_note;               ///< -s auto: a new decision and why, else empty
  /// The sink: the path (in the list) of the file whose data arrived last; else empty.
  std::string current_path;
};
/// sink -> agent: a file is verified and in place.
struct FileDone {
  std::uint32_t id = 0;
  std::uint64_t size = 0;
  /// The end-to-end hash both digests are of; kNone: no -E, both empty.
  HashAlgorithm hash = HashAlgorithm::kNone;
  DigestValue source_digest;
  DigestValue sink_digest;
  std::string final_path;
  /// The target already held it (compared block by block, nothing written).
  bool unchanged = false;
};
/// server -> agent: this side finished its part.
struct Done {
  std::uint64_t bytes = 0;
  std::uint64_t files = 0;
  std::uint16_t streams = 0;
  std::uint64_t wire_bytes = 0;  ///< payload bytes on the data streams (less with -c)
  std::uint64_t same_bytes = 0;  ///< bytes a compared target already held (not in `bytes`)
};
struct ErrorMessage {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
};
struct Abort {
  std::string reason;
};
struct Bye {};
struct Warning {
  std::string message;
};
/// server -> agent: what a remote path resolved to, shown under -v.
struct Note {
  std::string message;
};
/// sink -> agent, before its Error when a failed transfer left partial state:
/// what a re-run will not have to send again.
struct Kept {
  std::uint64_t bytes = 0;
  std::uint32_t partial_files = 0;
};

/// The feed: a following source -> the forwarding sink on its host, first.
struct FeedHello {
  std::string token;
};
/// The feed -> the following source, after FeedHello: where the sink puts
/// each file (session/target_plan), then the file list as FileList chunks.
struct FeedPlan {
  std::uint8_t mode = 0;  ///< TargetPlan::Mode: 0 into a directory, 1 as the target
  std::string base;       ///< TargetPlan::base
};
/// Following source -> feed: answer once file `file_id` has more than
/// `have` bytes from its start, or is complete.
struct FeedWait {
  std::uint32_t file_id = 0;
  std::uint64_t have = 0;
};
/// Feed -> following source: what the sink has of the file now.
struct FeedHave {
  std::uint32_t file_id = 0;
  std::uint64_t prefix = 0;  ///< bytes from its start, written to its partial file
  bool committed = false;    ///< verified and under its final name (then prefix = size)
  bool ended = false;        ///< its end arrived (with -E, `digest` is the source's)
  DigestValue digest;        ///< the first source's digest, with -E once ended; else empty
};

/// The probes a chain is ordered by: agent -> server, listen for TCP
/// connects (as a sink would listen: `listen_address`, `family`).
struct ProbeOpen {
  std::string listen_address;  ///< empty: the server chooses
  std::uint8_t family = 0;     ///< 4, 6, or 0 for either
  std::uint16_t port_min = 0;  ///< -Z: listen on one of these ports; 0 = any
  std::uint16_t port_max = 0;
};
/// Server -> agent: where it listens for probes.
struct ProbeReady {
  std::vector<std::string> addresses;
  std::uint16_t port = 0;
};
/// One node to probe: where it listens.
struct ProbeTarget {
  std::vector<std::string> addresses;
  std::uint16_t port = 0;
};
/// Agent -> server: connect to each target a few times and say how long a connect took.
struct ProbeMeasure {
  std::vector<ProbeTarget> targets;
};
/// Server -> agent: per target, the shortest connect in microseconds; 0 = none connected.
struct ProbeResult {
  std::vector<std::uint32_t> rtt_us;
};
/// Targets one ProbeMeasure may name: every destination and the source.
constexpr std::size_t kMaxProbeTargets = 257;

using ControlMessage =
    std::variant<Hello, HelloReply, SourceOpen, FileList, SinkOpen, SinkReady, SourceStart,
                 Progress, FileDone, Done, ErrorMessage, Abort, Bye, Warning, Kept, SourceReady,
                 SinkConnect, Note, FeedHello, FeedPlan, FeedWait, FeedHave, ProbeOpen, ProbeReady,
                 ProbeMeasure, ProbeResult>;

class WireWriter;

/// Type and payload, without the length prefix (ControlChannel adds it).
std::vector<std::uint8_t> EncodeMessage(const ControlMessage& message);
/// The same, written at the end of `out`.
void AppendMessage(const ControlMessage& message, WireWriter& out);
/// Throws BraidError(kProtocol) on anything malformed, truncated, oversized or unknown.
ControlMessage DecodeMessage(std::span<const std::uint8_t> bytes);

/// Name of a message for diagnostics ("SinkReady").
const char* MessageName(const ControlMessage& message);

/// True when `path` is relative, has no empty, "." or ".." components and no NUL:
/// the only kind of name a sink will create under its target.
bool IsSafeRelativePath(std::string_view path);

/// True for a feed token as the agent makes them: kFeedTokenLength lowercase hex digits.
bool IsFeedToken(std::string_view token);

}  // namespace braid
