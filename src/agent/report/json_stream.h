#pragma once
/// --json-stream: one JSON object a line on stdout, written as the copy runs,
/// for tools that watch a copy rather than wait for --json's one document.
/// Every event has "event" as its first key: "start", "interval", "file",
/// "retry", "error" and "end" (docs/output.md lists their fields). Pure: the
/// agent's TransferReport writes the lines.

#include <cstdint>
#include <optional>
#include <string>

#include "agent/report/report.h"

namespace braid {

/// The data starts: --json's "start" object, with the list's file count and
/// total bytes (null when a pipe or device has no known size).
std::string JsonStartEvent(const ReportHeader& header, std::uint64_t files,
                           std::optional<std::uint64_t> bytes);
/// One interval, as in --json's "intervals", and the bytes done so far.
std::string JsonIntervalEvent(const ReportInterval& interval, std::uint64_t bytes_done);

/// A file verified and in place at the sink.
struct FileEvent {
  std::string path;  ///< as --json's digests name it (host: before it for a remote sink)
  std::uint64_t size = 0;
  bool unchanged = false;  ///< the target already held it
  HashAlgorithm hash = HashAlgorithm::kNone;
  std::string digest;  ///< lower-case hex; "" without -E
};
std::string JsonFileEvent(const FileEvent& file);

/// An attempt failed and --retry runs the copy again.
std::string JsonRetryEvent(const ReportRetry& retry);
/// The copy failed: why, and what braid exits with (an "end" follows).
std::string JsonErrorEvent(const std::string& message, int exit_code, ErrorCode code);
/// The copy ended: --json's "end" object.
std::string JsonEndEvent(const ReportEnd& end);

}  // namespace braid
