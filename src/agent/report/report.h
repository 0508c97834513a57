#pragma once
/// iperf3-style reports of a copy: fixed intervals of what arrived, with each
/// data stream's share and TCP state, as one JSON document (--json) or CSV rows
/// (--report-csv). Pure: time and counts come in as arguments, text goes out;
/// the agent does the IO.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "braid/error.h"
#include "braid/options.h"
#include "proto/control_message.h"

namespace braid {

/// One stream's part of an interval.
struct IntervalStream {
  std::uint16_t index = 0;
  std::uint64_t bytes = 0;        ///< sent by this stream during the interval (on the wire)
  std::uint32_t rtt_us = 0;       ///< smoothed RTT at the interval's end
  std::uint32_t cwnd = 0;         ///< segments, at the interval's end
  std::uint32_t retransmits = 0;  ///< segments retransmitted during the interval
};

struct ReportInterval {
  double start = 0;  ///< seconds since the data started
  double end = 0;
  std::uint64_t bytes = 0;  ///< arrived at the sink during the interval
  std::vector<IntervalStream> streams;
  std::uint16_t active_streams = 0;  ///< streams carrying data at the end (-s auto moves it)
  double seconds() const { return end - start; }
};

/// One stream over the whole copy.
struct StreamTotals {
  std::uint16_t index = 0;
  std::uint64_t bytes = 0;  ///< on the wire
  std::uint32_t retransmits = 0;
  std::uint32_t max_rtt_us = 0;
  std::uint32_t min_rtt_us = 0;  ///< 0: never measured
};

/// Cuts the agent's running view of a copy into intervals. Boundaries are on a
/// fixed grid (k × interval) so rows line up across runs, but each interval
/// ends at the observation that crossed its boundary: progress arrives every
/// 200 ms, and splitting bytes between observations would invent data. Every
/// byte lands in exactly one interval, so the intervals sum to the total.
class IntervalRecorder {
 public:
  explicit IntervalRecorder(double interval_s);

  /// What the agent knows at `now_s` (seconds since the data started): the
  /// sink's byte count and the source's latest stream samples (may be empty).
  /// Returns the interval this closes, if `now_s` crossed a boundary.
  std::optional<ReportInterval> Observe(double now_s, std::uint64_t sink_bytes,
                                        const std::vector<StreamSample>& samples);
  /// Closes the last interval when the copy ends; nullopt if it would hold
  /// neither time nor bytes.
  std::optional<ReportInterval> Finish(double now_s, std::uint64_t sink_bytes,
                                       const std::vector<StreamSample>& samples);
  /// Per stream, in index order, over every sample seen.
  std::vector<StreamTotals> Totals() const;

 private:
  // No lock: only the agent's own thread uses a IntervalRecorder (agent/agent.cc);
  // the ends' reader threads reach the agent through its event queue only.
  struct StreamState {
    StreamSample latest;
    StreamSample at_close;  ///< the sample the previous interval ended with
    std::uint32_t max_rtt_us = 0;
    std::uint32_t min_rtt_us = 0;  ///< least non-zero min_rtt_us (else rtt_us) seen
  };
  void Absorb(double now_s, std::uint64_t sink_bytes, const std::vector<StreamSample>& samples);
  ReportInterval Close();

  double interval_s_;
  double next_boundary_;
  double now_s_ = 0;
  double last_end_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t bytes_at_close_ = 0;
  std::map<std::uint16_t, StreamState> streams_;
};

/// The "start" object: what was asked for.
struct ReportHeader {
  std::string version;
  double unix_time = 0;       ///< when the data started; aligns reports of staggered flows
  int streams = 0;            ///< -s N, or with streams_auto the most
  bool streams_auto = false;  ///< -s auto[:MIN-MAX]: JSON says "auto:MIN-MAX"
  int streams_min = 1;        ///< -s auto:MIN-MAX
  std::uint32_t block_size = 0;
  std::uint64_t window = 0;                   ///< 0: kernel autotuning
  HashAlgorithm hash = HashAlgorithm::kNone;  ///< -E; kNone: null in JSON
  std::uint64_t rate = 0;                     ///< bytes/s; 0: unlimited
  int tos = -1;                               ///< -1: not set (null in JSON)
  std::string congestion_control;
  int compress_level = -1;  ///< -1: off (null in JSON)
  std::vector<std::string> sources;
  std::string destination;
};
ReportHeader MakeReportHeader(const Options& options, std::string version, double unix_time);

/// The "end" object: what happened.
/// A failed attempt that --retry ran again.
struct ReportRetry {
  std::string error;   ///< what the attempt failed with
  int exit_code = 0;   ///< what braid would have exited with
  double delay_s = 0;  ///< the wait before the next attempt
};

struct ReportEnd {
  std::uint64_t bytes = 0;  ///< arrived at the sink
  double seconds = 0;       ///< from the data start to the end
  std::uint64_t files = 0;
  std::uint16_t streams_used = 0;
  bool hash_verified = false;  ///< every file's -E digest matched
  /// Each verified file's digest; the path has the host before it for a remote sink.
  struct Digest {
    std::string path;
    HashAlgorithm algorithm = HashAlgorithm::kNone;
    std::string value;  ///< lower-case hex
  };
  std::vector<Digest> digests;
  std::uint64_t bytes_skipped = 0;  ///< not sent: an earlier run left them at the sink
  /// Not sent: blocks of files already there that compared the same.
  std::uint64_t bytes_unchanged = 0;
  std::uint64_t files_unchanged = 0;  ///< skipped, or compared and found the same
  std::uint32_t blocks_resent = 0;    ///< kept blocks that failed verification
  std::uint64_t bytes_kept = 0;       ///< on failure: what a re-run will not send again
  std::vector<StreamTotals> streams;
  std::string error;  ///< why the copy failed; empty on success (then no "error" key)
  int exit_code = 0;  ///< what braid exits with
  ErrorCode error_code = ErrorCode::kOk;  ///< the numbered code (docs/errors.md)
  std::vector<ReportRetry> retries;       ///< the attempts before this one that failed
};

/// `text` as a JSON string literal, quotes included. Control characters are
/// escaped and invalid UTF-8 (file names are bytes) becomes U+FFFD, so the
/// document is valid JSON whatever the paths hold. Output is ASCII only.
std::string JsonQuote(std::string_view text);
/// A JSON number with `decimals` digits after the point; non-finite values
/// (which JSON cannot spell) become 0.
std::string JsonNumber(double value, int decimals);

/// The objects of --json's document, each on one line (--json-stream's events
/// are made of them): "start", one interval, "end".
std::string StartJson(const ReportHeader& header);
std::string IntervalJson(const ReportInterval& interval);
std::string EndJson(const ReportEnd& end);

/// The whole --json document, newline-terminated:
/// {"start": {...}, "intervals": [...], "end": {...}}. An interval lists only
/// the streams that carried data in it (with -s auto most of 64 may be idle);
/// "end" lists every stream once.
std::string FormatJsonReport(const ReportHeader& header,
                             const std::vector<ReportInterval>& intervals, const ReportEnd& end);

/// "time,stream,bytes,rate_Bps,rtt_us,cwnd,retransmits\n"
std::string CsvHeader();
/// One row per stream of `interval`; time is the interval's end in Unix
/// seconds (`unix_start` + end), so files of flows started apart line up.
std::string FormatCsvRows(const ReportInterval& interval, double unix_start);

}  // namespace braid
