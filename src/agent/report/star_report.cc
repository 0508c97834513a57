#include "agent/report/star_report.h"

#include <algorithm>

#include "agent/report/progress_format.h"
#include "agent/report/report.h"

namespace braid {
namespace {

/// How far along a running destination is, for ordering: a share of its
/// total when known, else its bytes (which sort after every share).
double Along(const DestinationStatus& d) {
  if (d.total && *d.total > 0) return static_cast<double>(d.have) / static_cast<double>(*d.total);
  return d.total ? 1.0 : 1.0 + static_cast<double>(d.have);
}

std::string Where(const DestinationStatus& d) {
  std::string text = d.name + " ";
  if (d.total && *d.total > 0) {
    text += std::to_string(static_cast<int>(100 * Along(d))) + "%";
  } else {
    text += FormatBytes(d.have);
  }
  return text + " " + FormatRate(d.rate_Bps);
}

bool Complete(const DestinationStatus& d) { return d.finished && d.exit_code == 0; }

}  // namespace

std::string FormatStarProgress(const std::vector<DestinationStatus>& destinations,
                               double elapsed_s) {
  std::vector<const DestinationStatus*> running;
  std::size_t done = 0;
  std::size_t failed = 0;
  for (const DestinationStatus& d : destinations) {
    if (!d.finished) running.push_back(&d);
    done += Complete(d) ? 1 : 0;
    failed += d.failed() ? 1 : 0;
  }
  std::string line =
      std::to_string(done) + "/" + CountOf(destinations.size(), "destination") + " done";
  if (failed > 0) line += ", " + std::to_string(failed) + " failed";
  if (!running.empty()) {
    auto by_progress = [](const DestinationStatus* a, const DestinationStatus* b) {
      return Along(*a) < Along(*b);
    };
    auto [slowest, fastest] = std::minmax_element(running.begin(), running.end(), by_progress);
    line += "; slowest " + Where(**slowest);
    if (running.size() > 1) line += "; fastest " + Where(**fastest);
  }
  return line + "; elapsed " + FormatDuration(elapsed_s);
}

ErrorCode StarErrorCode(const std::vector<DestinationStatus>& destinations) {
  if (destinations.empty()) return ErrorCode::kOk;
  const DestinationStatus& first = destinations.front();
  const bool alike = std::all_of(destinations.begin(), destinations.end(), [&](const auto& d) {
    return d.exit_code == first.exit_code && d.error_code == first.error_code;
  });
  if (alike) return first.error_code;
  return ErrorCode::kDestinationsFailed;
}

int StarExitCode(const std::vector<DestinationStatus>& destinations) {
  const ErrorCode code = StarErrorCode(destinations);
  // An interrupt's status is its signal's (130 or 143), not the code's.
  if (code == ErrorCode::kInterrupted && !destinations.empty()) {
    return destinations.front().exit_code;
  }
  return ExitCodeFor(code);
}

std::string StarFailureLine(const DestinationStatus& d) {
  return d.name + " failed: " + (d.error.empty() ? ErrorName(d.error_code) : d.error) + " (exit " +
         std::to_string(d.exit_code) + ")";
}

std::string StarSummaryLine(const std::vector<DestinationStatus>& destinations) {
  const auto failed = static_cast<std::size_t>(std::count_if(
      destinations.begin(), destinations.end(), [](const auto& d) { return d.failed(); }));
  const std::size_t complete = destinations.size() - failed;
  return std::to_string(failed) + " of " + CountOf(destinations.size(), "destination") +
         " failed (named above); " +
         (complete == 0   ? std::string("none is complete")
          : complete == 1 ? std::string("the other one is complete")
                          : "the other " + std::to_string(complete) + " are complete") +
         "; run the same command again to complete " + (failed == 1 ? "it" : "them");
}

namespace {

std::string DestinationJson(const DestinationStatus& d) {
  const double rate = d.seconds > 0 ? static_cast<double>(d.moved) / d.seconds : 0;
  std::string out = "{\"destination\": " + JsonQuote(d.name) +
                    ", \"outcome\": " + JsonQuote(d.failed() ? "failed" : "complete") +
                    ", \"bytes\": " + std::to_string(d.moved) +
                    ", \"bytes_skipped\": " + std::to_string(d.skipped) +
                    ", \"seconds\": " + JsonNumber(d.seconds, 6) +
                    ", \"bits_per_second\": " + JsonNumber(8 * rate, 3) +
                    ", \"predicted_bits_per_second\": " +
                    (d.predicted_Bps > 0 ? JsonNumber(8 * d.predicted_Bps, 3) : "null") +
                    ", \"retries\": " + std::to_string(d.retries) +
                    ", \"from\": " + (d.from.empty() ? "null" : JsonQuote(d.from)) +
                    ", \"exit_code\": " + std::to_string(d.exit_code) +
                    ", \"error_code\": " + std::to_string(static_cast<int>(d.error_code)) +
                    ", \"error_name\": " + JsonQuote(ErrorName(d.error_code));
  if (!d.error.empty()) out += ", \"error\": " + JsonQuote(d.error);
  return out + "}";
}

}  // namespace

std::string FormatStarJson(const std::vector<DestinationStatus>& destinations,
                           const std::string& topology, double seconds) {
  std::uint64_t bytes = 0;
  std::size_t failed = 0;
  for (const DestinationStatus& d : destinations) {
    bytes += d.moved;
    failed += d.failed() ? 1 : 0;
  }
  const ErrorCode code = StarErrorCode(destinations);
  std::string out = "{\n  \"start\": {\"topology\": " + JsonQuote(topology) +
                    ", \"destinations\": " + std::to_string(destinations.size()) +
                    "},\n  \"destinations\": [";
  for (std::size_t i = 0; i < destinations.size(); ++i) {
    out += (i == 0 ? "\n    " : ",\n    ") + DestinationJson(destinations[i]);
  }
  out += destinations.empty() ? "],\n" : "\n  ],\n";
  out += "  \"end\": {\"destinations\": " + std::to_string(destinations.size()) +
         ", \"complete\": " + std::to_string(destinations.size() - failed) +
         ", \"failed\": " + std::to_string(failed) + ", \"bytes\": " + std::to_string(bytes) +
         ", \"seconds\": " + JsonNumber(seconds, 6) +
         ", \"exit_code\": " + std::to_string(StarExitCode(destinations)) +
         ", \"error_code\": " + std::to_string(static_cast<int>(code)) +
         ", \"error_name\": " + JsonQuote(ErrorName(code)) + "}";
  if (failed > 0) out += ",\n  \"error\": " + JsonQuote(StarSummaryLine(destinations));
  return out + "\n}\n";
}

}  // namespace braid
