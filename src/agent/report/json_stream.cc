#include "agent/report/json_stream.h"

namespace braid {
namespace {

/// `object` ("{...}") with "event" put first, as one line.
std::string Event(const char* name, const std::string& object) {
  std::string line = "{\"event\": \"" + std::string(name) + "\"";
  if (object.size() > 2) line += ", " + object.substr(1, object.size() - 2);
  return line + "}\n";
}

}  // namespace

std::string JsonStartEvent(const ReportHeader& header, std::uint64_t files,
                           std::optional<std::uint64_t> bytes) {
  std::string fields = StartJson(header);
  fields.pop_back();  // its closing brace: the counts go inside
  fields += ", \"files\": " + std::to_string(files) +
            ", \"bytes\": " + (bytes ? std::to_string(*bytes) : std::string("null")) + "}";
  return Event("start", fields);
}

std::string JsonIntervalEvent(const ReportInterval& interval, std::uint64_t bytes_done) {
  std::string fields = IntervalJson(interval);
  fields.pop_back();
  return Event("interval", fields + ", \"bytes_done\": " + std::to_string(bytes_done) + "}");
}

std::string JsonFileEvent(const FileEvent& file) {
  std::string fields = "{\"path\": " + JsonQuote(file.path) +
                       ", \"size\": " + std::to_string(file.size) +
                       ", \"unchanged\": " + (file.unchanged ? "true" : "false");
  if (file.hash != HashAlgorithm::kNone) {
    fields += ", \"algorithm\": " + JsonQuote(HashName(file.hash)) +
              ", \"digest\": " + JsonQuote(file.digest);
  }
  return Event("file", fields + "}");
}

std::string JsonRetryEvent(const ReportRetry& retry) {
  return Event("retry", "{\"error\": " + JsonQuote(retry.error) +
                            ", \"exit_code\": " + std::to_string(retry.exit_code) +
                            ", \"delay_seconds\": " + JsonNumber(retry.delay_s, 3) + "}");
}

std::string JsonErrorEvent(const std::string& message, int exit_code, ErrorCode code) {
  return Event("error", "{\"message\": " + JsonQuote(message) +
                            ", \"exit_code\": " + std::to_string(exit_code) +
                            ", \"error_code\": " + std::to_string(static_cast<int>(code)) +
                            ", \"error_name\": " + JsonQuote(ErrorName(code)) + "}");
}

std::string JsonEndEvent(const ReportEnd& end) { return Event("end", EndJson(end)); }

}  // namespace braid
