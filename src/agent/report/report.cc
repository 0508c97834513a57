#include "agent/report/report.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <ctime>

#include "agent/report/visible_text.h"

namespace braid {
namespace {

/// `a - b` for counters that only grow; a counter that went back (a stream
/// that reconnected, a reordered sample) contributes nothing rather than 2^64.
template <typename T>
T Grown(T a, T b) {
  return a > b ? static_cast<T>(a - b) : T{0};
}

std::string Timestamp(double unix_time) {
  std::time_t t = static_cast<std::time_t>(std::floor(std::isfinite(unix_time) ? unix_time : 0));
  std::tm tm{};
  char buf[32] = "";
  if (::gmtime_r(&t, &tm) != nullptr) std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

double Rate(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / seconds : 0;
}

const char* Bool(bool b) { return b ? "true" : "false"; }

/// -s as chosen: a number for -s N, "auto:MIN-MAX" for -s auto.
std::string StreamsJson(const ReportHeader& h) {
  if (!h.streams_auto) return std::to_string(h.streams);
  return "\"auto:" + std::to_string(h.streams_min) + "-" + std::to_string(h.streams) + "\"";
}

}  // namespace

std::string IntervalJson(const ReportInterval& iv) {
  std::string out =
      "{\"start\": " + JsonNumber(iv.start, 6) + ", \"end\": " + JsonNumber(iv.end, 6) +
      ", \"seconds\": " + JsonNumber(iv.seconds(), 6) + ", \"bytes\": " + std::to_string(iv.bytes) +
      ", \"bits_per_second\": " + JsonNumber(8 * Rate(iv.bytes, iv.seconds()), 3) +
      ", \"active_streams\": " + std::to_string(iv.active_streams) + ", \"streams\": [";
  bool first = true;
  for (const IntervalStream& s : iv.streams) {
    if (s.bytes == 0) continue;  // idle in this interval: its TCP state says nothing new
    out += first ? "" : ", ";
    first = false;
    out += "{\"index\": " + std::to_string(s.index) + ", \"bytes\": " + std::to_string(s.bytes) +
           ", \"rtt_us\": " + std::to_string(s.rtt_us) + ", \"cwnd\": " + std::to_string(s.cwnd) +
           ", \"retransmits\": " + std::to_string(s.retransmits) + "}";
  }
  return out + "]}";
}

IntervalRecorder::IntervalRecorder(double interval_s)
    : interval_s_(interval_s > 0 ? interval_s : 1.0), next_boundary_(interval_s_) {}

void IntervalRecorder::Absorb(double now_s, std::uint64_t sink_bytes,
                              const std::vector<StreamSample>& samples) {
  now_s_ = std::max(now_s_, now_s);
  bytes_ = std::max(bytes_, sink_bytes);
  for (const StreamSample& sample : samples) {
    StreamState& st = streams_[sample.index];
    st.latest = sample;
    st.max_rtt_us = std::max(st.max_rtt_us, sample.rtt_us);
    std::uint32_t low = sample.min_rtt_us != 0 ? sample.min_rtt_us : sample.rtt_us;
    if (low != 0 && (st.min_rtt_us == 0 || low < st.min_rtt_us)) st.min_rtt_us = low;
  }
}

ReportInterval IntervalRecorder::Close() {
  ReportInterval iv;
  iv.start = last_end_;
  iv.end = now_s_;
  iv.bytes = Grown(bytes_, bytes_at_close_);
  for (auto& [index, st] : streams_) {
    iv.streams.push_back({index, Grown(st.latest.bytes, st.at_close.bytes), st.latest.rtt_us,
                          st.latest.cwnd, Grown(st.latest.retrans, st.at_close.retrans)});
    st.at_close = st.latest;
  }
  last_end_ = now_s_;
  bytes_at_close_ = bytes_;
  return iv;
}

std::optional<ReportInterval> IntervalRecorder::Observe(double now_s, std::uint64_t sink_bytes,
                                                        const std::vector<StreamSample>& samples) {
  Absorb(now_s, sink_bytes, samples);
  if (!(now_s_ >= next_boundary_)) return std::nullopt;
  // The next boundary after now, computed rather than stepped: a long stall
  // must not cost one loop turn per missed interval.
  next_boundary_ = (std::floor(now_s_ / interval_s_) + 1) * interval_s_;
  return Close();
}

std::optional<ReportInterval> IntervalRecorder::Finish(double now_s, std::uint64_t sink_bytes,
                                                       const std::vector<StreamSample>& samples) {
  Absorb(now_s, sink_bytes, samples);
  bool moved = bytes_ != bytes_at_close_;
  for (const auto& [index, st] : streams_) {
    moved = moved || st.latest.bytes != st.at_close.bytes;
  }
  if (now_s_ <= last_end_ && !moved) return std::nullopt;
  return Close();
}

std::vector<StreamTotals> IntervalRecorder::Totals() const {
  std::vector<StreamTotals> out;
  for (const auto& [index, st] : streams_) {
    out.push_back({index, st.latest.bytes, st.latest.retrans, st.max_rtt_us, st.min_rtt_us});
  }
  return out;
}

ReportHeader MakeReportHeader(const Options& options, std::string version, double unix_time) {
  ReportHeader h;
  h.version = std::move(version);
  h.unix_time = unix_time;
  h.streams = options.streams;
  h.streams_auto = options.streams_auto;
  h.streams_min = options.streams_min;
  h.block_size = options.block_size;
  h.window = options.window;
  h.hash = options.hash;
  h.rate = options.rate;
  h.tos = options.tos;
  h.congestion_control = options.congestion_control;
  h.compress_level = options.compress_level;
  for (const Endpoint& s : options.sources) h.sources.push_back(s.Display());
  h.destination = options.destination.Display();
  return h;
}

std::string JsonQuote(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      std::size_t len = Utf8Length(text, i);
      if (len == 0) {
        out += "\\ufffd";
        ++i;
      } else if (IsC1Control(text.substr(i, len))) {
        // Valid JSON raw, but a terminal that shows the document may obey it.
        out += "\\u00";
        out += kHex[static_cast<unsigned char>(text[i + 1]) >> 4];
        out += kHex[static_cast<unsigned char>(text[i + 1]) & 0xF];
        i += len;
      } else {
        out.append(text.substr(i, len));
        i += len;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 0xF];
        } else {
          out += static_cast<char>(c);
        }
    }
    ++i;
  }
  return out + "\"";
}

std::string JsonNumber(double value, int decimals) {
  if (!std::isfinite(value)) return "0";
  char buf[512];
  auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed, decimals);
  if (ec != std::errc()) return "0";
  std::string out(buf, ptr);
  // "-0.000" is valid JSON but reads like a bug.
  if (out[0] == '-' && out.find_first_not_of("-0.") == std::string::npos) out.erase(0, 1);
  return out;
}

std::string StartJson(const ReportHeader& h) {
  std::string out =
      "{\"version\": " + JsonQuote(h.version) +
      ", \"timestamp\": " + JsonQuote(Timestamp(h.unix_time)) +
      ", \"timesecs\": " + JsonNumber(h.unix_time, 3) + ", \"options\": {" +
      "\"streams\": " + StreamsJson(h) + ", \"block_size\": " + std::to_string(h.block_size) +
      ", \"window\": " + std::to_string(h.window) +
      ", \"hash\": " + (h.hash == HashAlgorithm::kNone ? "null" : JsonQuote(HashName(h.hash))) +
      ", \"rate\": " + std::to_string(h.rate) +
      ", \"tos\": " + (h.tos >= 0 ? std::to_string(h.tos) : "null") +
      ", \"cc\": " + (h.congestion_control.empty() ? "null" : JsonQuote(h.congestion_control)) +
      ", \"compress\": " + (h.compress_level > 0 ? std::to_string(h.compress_level) : "null") +
      "}, \"source\": [";
  for (std::size_t i = 0; i < h.sources.size(); ++i) {
    out += (i == 0 ? "" : ", ") + JsonQuote(h.sources[i]);
  }
  return out + "], \"destination\": " + JsonQuote(h.destination) + "}";
}

namespace {

std::string StreamTotalsJson(const std::vector<StreamTotals>& streams) {
  std::string out = "[";
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const StreamTotals& s = streams[i];
    out += (i == 0 ? "" : ", ");
    out += "{\"index\": " + std::to_string(s.index) + ", \"bytes\": " + std::to_string(s.bytes) +
           ", \"retransmits\": " + std::to_string(s.retransmits) +
           ", \"max_rtt_us\": " + std::to_string(s.max_rtt_us) +
           ", \"min_rtt_us\": " + std::to_string(s.min_rtt_us) + "}";
  }
  return out + "]";
}

std::string DigestsAndRetriesJson(const ReportEnd& e) {
  std::string out;
  if (!e.digests.empty()) out += ", \"digests\": [";
  for (std::size_t i = 0; i < e.digests.size(); ++i) {
    const ReportEnd::Digest& d = e.digests[i];
    out += std::string(i == 0 ? "" : ", ") + "{\"path\": " + JsonQuote(d.path) +
           ", \"algorithm\": " + JsonQuote(HashName(d.algorithm)) +
           ", \"value\": " + JsonQuote(d.value) + "}";
  }
  if (!e.digests.empty()) out += "]";
  out += ", \"retries\": [";
  for (std::size_t i = 0; i < e.retries.size(); ++i) {
    const ReportRetry& r = e.retries[i];
    out += std::string(i == 0 ? "" : ", ") + "{\"error\": " + JsonQuote(r.error) +
           ", \"exit_code\": " + std::to_string(r.exit_code) +
           ", \"delay_seconds\": " + JsonNumber(r.delay_s, 3) + "}";
  }
  return out + "]";
}

}  // namespace

std::string EndJson(const ReportEnd& e) {
  return "{\"bytes\": " + std::to_string(e.bytes) + ", \"seconds\": " + JsonNumber(e.seconds, 6) +
         ", \"bits_per_second\": " + JsonNumber(8 * Rate(e.bytes, e.seconds), 3) +
         ", \"files\": " + std::to_string(e.files) +
         ", \"streams_used\": " + std::to_string(e.streams_used) +
         ", \"hash_verified\": " + Bool(e.hash_verified) +
         ", \"bytes_skipped\": " + std::to_string(e.bytes_skipped) +
         ", \"bytes_unchanged\": " + std::to_string(e.bytes_unchanged) +
         ", \"files_unchanged\": " + std::to_string(e.files_unchanged) +
         ", \"blocks_resent\": " + std::to_string(e.blocks_resent) +
         ", \"exit_code\": " + std::to_string(e.exit_code) +
         ", \"error_code\": " + std::to_string(static_cast<int>(e.error_code)) +
         ", \"error_name\": " + JsonQuote(ErrorName(e.error_code)) +
         (e.error.empty() ? "" : ", \"bytes_kept\": " + std::to_string(e.bytes_kept)) +
         ", \"streams\": " + StreamTotalsJson(e.streams) + DigestsAndRetriesJson(e) + "}";
}

std::string FormatJsonReport(const ReportHeader& h, const std::vector<ReportInterval>& intervals,
                             const ReportEnd& e) {
  std::string out = "{\n  \"start\": " + StartJson(h) + ",\n  \"intervals\": [";
  for (std::size_t i = 0; i < intervals.size(); ++i) {
    out += (i == 0 ? "\n    " : ",\n    ") + IntervalJson(intervals[i]);
  }
  out += intervals.empty() ? "],\n" : "\n  ],\n";
  out += "  \"end\": " + EndJson(e);
  if (!e.error.empty()) out += ",\n  \"error\": " + JsonQuote(e.error);
  return out + "\n}\n";
}

std::string CsvHeader() {
  return "time,stream,bytes,rate_Bps,rtt_us,cwnd,retransmits,active_streams\n";
}

std::string FormatCsvRows(const ReportInterval& interval, double unix_start) {
  std::string out;
  std::string time = JsonNumber(unix_start + interval.end, 3);
  for (const IntervalStream& s : interval.streams) {
    out += time + "," + std::to_string(s.index) + "," + std::to_string(s.bytes) + "," +
           JsonNumber(Rate(s.bytes, interval.seconds()), 0) + "," + std::to_string(s.rtt_us) + "," +
           std::to_string(s.cwnd) + "," + std::to_string(s.retransmits) + "," +
           std::to_string(interval.active_streams) + "\n";
  }
  return out;
}

}  // namespace braid
