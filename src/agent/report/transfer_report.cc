#include "agent/report/transfer_report.h"

#include <cerrno>
#include <chrono>

#include "agent/report/console.h"
#include "braid/error.h"

#ifndef BRAID_VERSION
#error "BRAID_VERSION must be defined by the build (see src/CMakeLists.txt)"
#endif

namespace braid {
namespace {

/// Without -P the intervals are iperf3's 1 s.
double IntervalSeconds(const Options& options) {
  return options.progress_interval > 0 ? options.progress_interval : 1.0;
}

double UnixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

TransferReport::TransferReport(const Options& options, bool append)
    : options_(options), recorder_(IntervalSeconds(options)) {
  if (options.report_csv.empty()) return;
  csv_ = std::fopen(options.report_csv.c_str(), append ? "ae" : "we");
  if (csv_ == nullptr) {
    throw BraidError(ErrorCode::kUsage,
                     "--report-csv: cannot create " + DescribeErrno("", options.report_csv, errno));
  }
  if (!append) std::fputs(CsvHeader().c_str(), csv_);
  std::fflush(csv_);
}

TransferReport::~TransferReport() { CloseCsv(); }

void TransferReport::Start(double now_s, std::uint64_t files, std::optional<std::uint64_t> bytes) {
  start_s_ = now_s;
  unix_start_ = UnixNow();
  if (options_.json_stream) {
    Emit(JsonStartEvent(MakeReportHeader(options_, BRAID_VERSION, unix_start_), files, bytes));
  }
}

void TransferReport::OnFileDone(const FileEvent& file) {
  if (options_.json_stream) Emit(JsonFileEvent(file));
}

void TransferReport::OnRetry(const ReportRetry& retry) {
  if (options_.json_stream) Emit(JsonRetryEvent(retry));
}

void TransferReport::Emit(const std::string& line) const {
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
}

void TransferReport::OnProgress(double now_s, bool from_source, const Progress& progress,
                                std::uint64_t sink_bytes) {
  if (!start_s_ || finished_) return;
  sink_bytes_ = sink_bytes;
  if (from_source) {
    samples_ = progress.stream_samples;
    active_streams_ = progress.active_streams;
  }
  if (auto interval = recorder_.Observe(now_s - *start_s_, sink_bytes, samples_)) Add(*interval);
}

void TransferReport::Finish(double now_s, std::uint64_t sink_bytes) {
  if (!start_s_ || finished_) return;
  finished_ = true;
  sink_bytes_ = sink_bytes;
  end_s_ = now_s - *start_s_;
  if (auto interval = recorder_.Finish(end_s_, sink_bytes, samples_)) Add(*interval);
  CloseCsv();
}

void TransferReport::Add(ReportInterval interval) {
  interval.active_streams = active_streams_;
  if (csv_ != nullptr) {
    std::fputs(FormatCsvRows(interval, unix_start_).c_str(), csv_);
    std::fflush(csv_);  // rows are for watching a long run as it goes
  }
  if (options_.json_stream) Emit(JsonIntervalEvent(interval, sink_bytes_));
  if (options_.json) intervals_.push_back(interval);
}

void TransferReport::CloseCsv() {
  if (csv_ == nullptr) return;
  bool failed = std::ferror(csv_) != 0;
  failed = std::fclose(csv_) != 0 || failed;
  csv_ = nullptr;
  // The copy itself went fine; a lost report is worth a warning, not a failure.
  if (failed) {
    PrintLine(stderr, "braid: warning: could not write all of the report to %s",
              options_.report_csv.c_str());
  }
}

void TransferReport::PrintJson(ReportEnd end) {
  if (!options_.json && !options_.json_stream) return;
  end.seconds = end_s_;
  end.streams = recorder_.Totals();
  if (options_.json_stream) {
    if (!end.error.empty()) Emit(JsonErrorEvent(end.error, end.exit_code, end.error_code));
    Emit(JsonEndEvent(end));
    return;
  }
  double unix_time = start_s_ ? unix_start_ : UnixNow();
  std::string doc =
      FormatJsonReport(MakeReportHeader(options_, BRAID_VERSION, unix_time), intervals_, end);
  std::fputs(doc.c_str(), stdout);
  std::fflush(stdout);
}

}  // namespace braid
