#pragma once
/// The agent's side of --json, --json-stream and --report-csv: feeds Progress
/// into an IntervalRecorder, appends CSV rows and --json-stream's events as
/// intervals close (so a long run can be watched and a crash keeps what was
/// written), and prints the JSON document at the end. The formatting itself is
/// agent/report/report.h and json_stream.h.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "agent/report/json_stream.h"
#include "agent/report/report.h"
#include "braid/options.h"
#include "proto/control_message.h"

namespace braid {

class TransferReport {
 public:
  /// Opens the --report-csv file and writes its header; a retried attempt
  /// (`append`) adds its rows to the first attempt's. Throws
  /// BraidError(kUsage) naming the file if it cannot be created.
  explicit TransferReport(const Options& options, bool append = false);
  ~TransferReport();
  TransferReport(const TransferReport&) = delete;
  TransferReport& operator=(const TransferReport&) = delete;

  /// True when the user asked for any report.
  static bool Wanted(const Options& options) {
    return options.json || options.json_stream || !options.report_csv.empty();
  }

  /// The data starts flowing now, `files` files of `bytes` (unknown for a
  /// pipe); `now_s` is on the agent's clock.
  void Start(double now_s, std::uint64_t files, std::optional<std::uint64_t> bytes);
  /// A Progress from the source (`from_source`) or the sink; `sink_bytes` is
  /// the agent's current count of bytes that arrived.
  void OnProgress(double now_s, bool from_source, const Progress& progress,
                  std::uint64_t sink_bytes);
  /// The copy ended: closes the last interval and the CSV file.
  void Finish(double now_s, std::uint64_t sink_bytes);
  /// --json-stream: a file is in place.
  void OnFileDone(const FileEvent& file);
  /// --json-stream: this attempt failed and another follows.
  void OnRetry(const ReportRetry& retry);
  /// --json: prints the document on stdout; --json-stream: the error, if
  /// any, and the end. Nothing without them. `end`'s seconds and streams are
  /// filled in here.
  void PrintJson(ReportEnd end);

 private:
  // No lock: only the agent's own thread uses a TransferReport (agent/agent.cc);
  // the ends' reader threads reach the agent through its event queue only.
  void Add(ReportInterval interval);
  void CloseCsv();
  /// --json-stream: one event line on stdout, flushed for whoever watches.
  void Emit(const std::string& line) const;

  const Options& options_;
  IntervalRecorder recorder_;
  std::FILE* csv_ = nullptr;
  std::optional<double> start_s_;  ///< agent clock when the data started
  double unix_start_ = 0;
  double end_s_ = 0;
  bool finished_ = false;
  std::uint64_t sink_bytes_ = 0;           ///< the latest, for --json-stream's intervals
  std::vector<StreamSample> samples_;      ///< the source's latest
  std::uint16_t active_streams_ = 0;       ///< the source's latest
  std::vector<ReportInterval> intervals_;  ///< kept only for --json
};

}  // namespace braid
