#include "agent/report/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "../support/mini_json.h"

namespace braid {
namespace {

using testing::JsonReader;
using testing::JsonValue;

bool IsAscii(const std::string& s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// ------------------------------------------------------------------ escaping

TEST(JsonQuoteTest, PlainTextIsOnlyQuoted) {
  EXPECT_EQ(JsonQuote(""), "\"\"");
  EXPECT_EQ(JsonQuote("dtn:/data/run42 x.h5"), "\"dtn:/data/run42 x.h5\"");
}

TEST(JsonQuoteTest, QuotesBackslashesAndControlsAreEscaped) {
  EXPECT_EQ(JsonQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(JsonQuote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(JsonQuote(std::string("\x01\x1f\x7f", 3)), "\"\\u0001\\u001f\\u007f\"");
  EXPECT_EQ(JsonQuote(std::string("a\0b", 3)), "\"a\\u0000b\"");
}

TEST(JsonQuoteTest, ValidUtf8IsKept) {
  for (std::string s : {"\xc3\xa9t\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80",
                        "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_EQ(JsonQuote(s), "\"" + s + "\"");
  }
}

TEST(JsonQuoteTest, InvalidUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(JsonQuote("a\xff"), "\"a\\ufffd\"");
  EXPECT_EQ(JsonQuote("\x80"), "\"\\ufffd\"");                        // stray continuation
  EXPECT_EQ(JsonQuote("\xc3"), "\"\\ufffd\"");                        // truncated at the end
  EXPECT_EQ(JsonQuote("\xc3x"), "\"\\ufffdx\"");                      // truncated mid-text
  EXPECT_EQ(JsonQuote("\xc0\xaf"), "\"\\ufffd\\ufffd\"");             // overlong '/'
  EXPECT_EQ(JsonQuote("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"");  // overlong, 3 bytes
  EXPECT_EQ(JsonQuote("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");  // a surrogate
  EXPECT_EQ(JsonQuote("\xf4\x90\x80\x80"), "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");  // > U+10FFFF
  EXPECT_TRUE(IsAscii(JsonQuote("\xfe\xff\xc3\x28")));
}

TEST(JsonQuoteTest, EveryByteStringParsesBack) {
  // All 256 single bytes and their pairs: whatever a file name holds, the
  // document stays valid JSON.
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; b += 17) {
      std::string s{static_cast<char>(a), static_cast<char>(b)};
      ASSERT_NO_THROW(JsonReader::Parse(JsonQuote(s))) << a << " " << b;
    }
  }
  EXPECT_EQ(JsonReader::Parse(JsonQuote("x\"\\\n\ty")).string, "x\"\\\n\ty");
}

TEST(JsonNumberTest, FixedDecimalsAndNoNonFinite) {
  EXPECT_EQ(JsonNumber(1.5, 3), "1.500");
  EXPECT_EQ(JsonNumber(-1.25, 2), "-1.25");
  EXPECT_EQ(JsonNumber(2.6, 0), "3");
  EXPECT_EQ(JsonNumber(-0.0, 3), "0.000");
  EXPECT_EQ(JsonNumber(-0.0001, 2), "0.00");
  EXPECT_EQ(JsonNumber(std::nan(""), 3), "0");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity(), 3), "0");
  EXPECT_EQ(JsonNumber(1e300, 0).size(), 301u);
}

// ------------------------------------------------------------------ intervals

StreamSample Sample(std::uint16_t index, std::uint64_t bytes, std::uint32_t rtt,
                    std::uint32_t min_rtt, std::uint32_t cwnd, std::uint32_t retrans) {
  return StreamSample{index, bytes, rtt, min_rtt, cwnd, retrans, 0};
}

TEST(IntervalRecorderTest, CutsOnTheGridAndSumsToTheTotal) {
  IntervalRecorder rec(1.0);
  std::vector<ReportInterval> closed;
  std::uint64_t bytes = 0;
  for (int tick = 1; tick <= 17; ++tick) {  // every 0.2 s up to 3.4 s
    bytes += 1000 + static_cast<std::uint64_t>(tick);
    if (auto iv = rec.Observe(0.2 * tick, bytes, {})) closed.push_back(*iv);
  }
  if (auto iv = rec.Finish(3.5, bytes + 7, {})) closed.push_back(*iv);
  ASSERT_EQ(closed.size(), 4u);
  std::uint64_t sum = 0;
  double previous_end = 0;
  for (std::size_t i = 0; i < closed.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_DOUBLE_EQ(closed[i].start, previous_end);
    EXPECT_GT(closed[i].seconds(), 0);
    previous_end = closed[i].end;
    sum += closed[i].bytes;
  }
  EXPECT_NEAR(closed[0].end, 1.0, 1e-9);
  EXPECT_NEAR(closed[1].end, 2.0, 1e-9);
  EXPECT_NEAR(closed[2].end, 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(closed[3].end, 3.5);
  EXPECT_EQ(sum, bytes + 7);
}

TEST(IntervalRecorderTest, AStallMakesOneLongIntervalNotManyEmptyOnes) {
  IntervalRecorder rec(1.0);
  EXPECT_FALSE(rec.Observe(0.5, 10, {}));
  auto iv = rec.Observe(7.3, 500, {});
  ASSERT_TRUE(iv);
  EXPECT_DOUBLE_EQ(iv->start, 0);
  EXPECT_DOUBLE_EQ(iv->end, 7.3);
  EXPECT_EQ(iv->bytes, 500u);
  EXPECT_FALSE(rec.Observe(7.9, 600, {}));  // the next boundary is 8, not 2
  ASSERT_TRUE(rec.Observe(8.0, 700, {}));
}

TEST(IntervalRecorderTest, FinishWithNothingNewAddsNoInterval) {
  IntervalRecorder rec(0.5);
  ASSERT_TRUE(rec.Observe(0.6, 100, {}));
  EXPECT_FALSE(rec.Finish(0.6, 100, {}));
  IntervalRecorder empty(1.0);
  EXPECT_FALSE(empty.Finish(0, 0, {}));
}

TEST(IntervalRecorderTest, BytesThatArriveWithoutTimePassingStillCount) {
  IntervalRecorder rec(1.0);
  ASSERT_TRUE(rec.Observe(1.0, 100, {}));
  auto last = rec.Finish(1.0, 150, {});
  ASSERT_TRUE(last);
  EXPECT_EQ(last->bytes, 50u);
}

TEST(IntervalRecorderTest, PerStreamDeltasLatestStateAndTotals) {
  IntervalRecorder rec(1.0);
  EXPECT_FALSE(rec.Observe(0.5, 50, {Sample(0, 40, 900, 0, 10, 1), Sample(3, 10, 800, 700, 5, 0)}));
  auto first =
      rec.Observe(1.1, 200, {Sample(0, 120, 1500, 600, 20, 4), Sample(3, 70, 400, 350, 8, 2)});
  ASSERT_TRUE(first);
  ASSERT_EQ(first->streams.size(), 2u);
  EXPECT_EQ(first->streams[0].index, 0);
  EXPECT_EQ(first->streams[0].bytes, 120u);
  EXPECT_EQ(first->streams[0].rtt_us, 1500u);
  EXPECT_EQ(first->streams[0].cwnd, 20u);
  EXPECT_EQ(first->streams[0].retransmits, 4u);
  EXPECT_EQ(first->streams[1].index, 3);
  EXPECT_EQ(first->streams[1].bytes, 70u);

  // An update from the sink only keeps the streams' last samples.
  EXPECT_FALSE(rec.Observe(1.5, 260, {}));
  auto second =
      rec.Finish(1.8, 300, {Sample(0, 180, 1000, 600, 22, 5), Sample(3, 150, 450, 340, 9, 2)});
  ASSERT_TRUE(second);
  ASSERT_EQ(second->streams.size(), 2u);
  EXPECT_EQ(second->streams[0].bytes, 60u);
  EXPECT_EQ(second->streams[0].retransmits, 1u);
  EXPECT_EQ(second->streams[1].bytes, 80u);
  EXPECT_EQ(second->streams[1].retransmits, 0u);
  EXPECT_EQ(second->streams[1].rtt_us, 450u);
  EXPECT_EQ(first->bytes + second->bytes, 300u);

  std::vector<StreamTotals> totals = rec.Totals();
  ASSERT_EQ(totals.size(), 2u);
  EXPECT_EQ(totals[0].index, 0);
  EXPECT_EQ(totals[0].bytes, 180u);
  EXPECT_EQ(totals[0].bytes, first->streams[0].bytes + second->streams[0].bytes);
  EXPECT_EQ(totals[0].retransmits, 5u);
  EXPECT_EQ(totals[0].max_rtt_us, 1500u);
  EXPECT_EQ(totals[0].min_rtt_us, 600u);  // the kernel's min, once it has one
  EXPECT_EQ(totals[1].max_rtt_us, 800u);
  EXPECT_EQ(totals[1].min_rtt_us, 340u);
}

TEST(IntervalRecorderTest, CountersThatGoBackDoNotWrapAround) {
  IntervalRecorder rec(1.0);
  ASSERT_TRUE(rec.Observe(1.0, 1000, {Sample(1, 500, 1, 1, 1, 9)}));
  auto iv = rec.Observe(2.0, 900, {Sample(1, 400, 1, 1, 1, 3)});
  ASSERT_TRUE(iv);
  EXPECT_EQ(iv->bytes, 0u);
  EXPECT_EQ(iv->streams.at(0).bytes, 0u);
  EXPECT_EQ(iv->streams.at(0).retransmits, 0u);
}

TEST(IntervalRecorderTest, ANonPositiveIntervalFallsBackToOneSecond) {
  IntervalRecorder rec(0);
  EXPECT_FALSE(rec.Observe(0.9, 1, {}));
  EXPECT_TRUE(rec.Observe(1.0, 2, {}));
}

// ------------------------------------------------------------------ documents

ReportHeader SampleHeader() {
  Options o;
  o.streams = 8;
  o.streams_auto = false;
  o.block_size = 4u << 20;
  o.window = 16u << 20;
  o.hash = HashAlgorithm::kSha256;
  o.rate = 125000000;
  o.tos = 0x20;
  o.congestion_control = "bbr";
  o.sources.push_back(Endpoint{"", "dtn", "/data/\"odd\"\nname"});
  o.sources.push_back(Endpoint{"", "dtn", "/data/b"});
  o.destination.path = "/tmp/out";
  return MakeReportHeader(o, "9.8.7", 1700000000.25);
}

std::vector<ReportInterval> SampleIntervals() {
  ReportInterval a{0, 1.1, 1000, {{0, 600, 100, 10, 0}, {1, 500, 120, 12, 3}}};
  ReportInterval b{1.1, 2.0, 3000, {{0, 1400, 110, 11, 1}, {1, 1500, 130, 13, 0}}};
  return {a, b};
}

ReportEnd SampleEnd() {
  ReportEnd e;
  e.bytes = 4000;
  e.seconds = 2.0;
  e.files = 2;
  e.streams_used = 2;
  e.hash_verified = true;
  e.digests = {{"dst/a", HashAlgorithm::kSha256, "ab01"},
               {"dst/\"b", HashAlgorithm::kSha256, "cd"}};
  e.streams = {{0, 2000, 1, 110, 90}, {1, 2000, 3, 130, 95}};
  return e;
}

TEST(JsonReportTest, IsValidJsonWithTheDocumentedKeys) {
  std::string doc = FormatJsonReport(SampleHeader(), SampleIntervals(), SampleEnd());
  ASSERT_FALSE(doc.empty());
  EXPECT_EQ(doc.back(), '\n');
  JsonValue v;
  ASSERT_NO_THROW(v = JsonReader::Parse(doc)) << doc;
  EXPECT_EQ(v.object.size(), 3u) << doc;  // start, intervals, end; no error

  const JsonValue& start = v["start"];
  EXPECT_EQ(start["version"].string, "9.8.7");
  EXPECT_EQ(start["timestamp"].string, "2023-11-14T22:13:20Z");
  EXPECT_DOUBLE_EQ(start["timesecs"].number, 1700000000.25);
  const JsonValue& opts = start["options"];
  EXPECT_EQ(opts["streams"].number, 8);
  EXPECT_EQ(opts["block_size"].number, 4 << 20);
  EXPECT_EQ(opts["window"].number, 16 << 20);
  EXPECT_EQ(opts["hash"].string, "sha256");
  EXPECT_EQ(opts["rate"].number, 125000000);
  EXPECT_EQ(opts["tos"].number, 32);
  EXPECT_EQ(opts["cc"].string, "bbr");
  EXPECT_EQ(opts["compress"].type, JsonValue::Type::kNull);
  ASSERT_EQ(start["source"].array.size(), 2u);
  EXPECT_EQ(start["source"].array[0].string, "dtn:/data/\"odd\"\nname");
  EXPECT_EQ(start["destination"].string, "/tmp/out");

  const JsonValue& intervals = v["intervals"];
  ASSERT_EQ(intervals.type, JsonValue::Type::kArray);
  ASSERT_EQ(intervals.array.size(), 2u);
  double sum = 0;
  for (const JsonValue& iv : intervals.array) {
    for (const char* key : {"start", "end", "seconds", "bytes", "bits_per_second", "streams"}) {
      EXPECT_TRUE(iv.Has(key)) << key;
    }
    sum += iv["bytes"].number;
    for (const JsonValue& s : iv["streams"].array) {
      for (const char* key : {"index", "bytes", "rtt_us", "cwnd", "retransmits"}) {
        EXPECT_TRUE(s.Has(key)) << key;
      }
    }
  }
  EXPECT_NEAR(intervals.array[0]["seconds"].number, 1.1, 1e-9);
  EXPECT_NEAR(intervals.array[0]["bits_per_second"].number, 8000 / 1.1, 1e-3);
  EXPECT_EQ(intervals.array[1]["streams"].array[1]["cwnd"].number, 13);

  const JsonValue& end = v["end"];
  EXPECT_EQ(end["bytes"].number, sum);
  EXPECT_EQ(end["seconds"].number, 2.0);
  EXPECT_EQ(end["bits_per_second"].number, 16000);
  EXPECT_EQ(end["files"].number, 2);
  EXPECT_EQ(end["streams_used"].number, 2);
  EXPECT_TRUE(end["hash_verified"].boolean);
  ASSERT_EQ(end["digests"].array.size(), 2u);
  EXPECT_EQ(end["digests"].array[1]["path"].string, "dst/\"b");
  EXPECT_EQ(end["digests"].array[0]["algorithm"].string, "sha256");
  EXPECT_EQ(end["digests"].array[0]["value"].string, "ab01");
  ASSERT_EQ(end["streams"].array.size(), 2u);
  EXPECT_EQ(end["streams"].array[1]["retransmits"].number, 3);
  EXPECT_EQ(end["streams"].array[1]["max_rtt_us"].number, 130);
  EXPECT_EQ(end["streams"].array[1]["min_rtt_us"].number, 95);
}

TEST(JsonReportTest, AnIntervalListsOnlyTheStreamsThatCarriedData) {
  ReportInterval iv{0, 1, 700, {{0, 600, 100, 10, 0}, {1, 0, 120, 12, 0}, {5, 100, 90, 9, 2}}};
  JsonValue v = JsonReader::Parse(FormatJsonReport(SampleHeader(), {iv}, SampleEnd()));
  const JsonValue& streams = v["intervals"].array.at(0)["streams"];
  ASSERT_EQ(streams.array.size(), 2u);
  EXPECT_EQ(streams.array[0]["index"].number, 0);
  EXPECT_EQ(streams.array[1]["index"].number, 5);
  EXPECT_EQ(streams.array[1]["retransmits"].number, 2);
  // An interval in which no stream sent anything has an empty list.
  ReportInterval idle{1, 2, 0, {{0, 0, 100, 10, 0}}};
  v = JsonReader::Parse(FormatJsonReport(SampleHeader(), {idle}, SampleEnd()));
  EXPECT_TRUE(v["intervals"].array.at(0)["streams"].array.empty());
}

TEST(JsonReportTest, StreamsAreReportedAsChosen) {
  Options o;
  o.sources.push_back(Endpoint{"", "", "a"});
  o.destination.path = "b";
  ASSERT_TRUE(o.streams_auto);  // the default: -s auto:1-64
  JsonValue v = JsonReader::Parse(FormatJsonReport(MakeReportHeader(o, "1", 0), {}, {}));
  EXPECT_EQ(v["start"]["options"]["streams"].string, "auto:1-64");
  o.streams_min = 3;
  o.streams = 16;
  v = JsonReader::Parse(FormatJsonReport(MakeReportHeader(o, "1", 0), {}, {}));
  EXPECT_EQ(v["start"]["options"]["streams"].string, "auto:3-16");
  o.streams_auto = false;
  o.streams = 4;
  v = JsonReader::Parse(FormatJsonReport(MakeReportHeader(o, "1", 0), {}, {}));
  EXPECT_EQ(v["start"]["options"]["streams"].type, JsonValue::Type::kNumber);
  EXPECT_EQ(v["start"]["options"]["streams"].number, 4);
}

TEST(JsonReportTest, EndCarriesTheExitAndErrorCodes) {
  JsonValue ok = JsonReader::Parse(FormatJsonReport(SampleHeader(), {}, SampleEnd()));
  EXPECT_EQ(ok["end"]["exit_code"].number, 0);
  EXPECT_EQ(ok["end"]["error_code"].number, 0);
  EXPECT_EQ(ok["end"]["error_name"].string, "ok");
  ReportEnd e = SampleEnd();
  e.error = "dst: No space left on device";
  e.exit_code = ExitCodeFor(ErrorCode::kDiskFull);
  e.error_code = ErrorCode::kDiskFull;
  JsonValue v = JsonReader::Parse(FormatJsonReport(SampleHeader(), {}, e));
  EXPECT_EQ(v["end"]["exit_code"].number, 9);
  EXPECT_EQ(v["end"]["error_code"].number, 10);
  EXPECT_EQ(v["end"]["error_name"].string, "disk-full");
}

TEST(JsonReportTest, UnsetOptionsAreNullAndAnErrorIsReported) {
  Options o;
  o.sources.push_back(Endpoint{"", "", "a"});
  o.destination.path = "b";
  ReportEnd e;
  e.error = "dst: No space left on device";
  JsonValue v = JsonReader::Parse(FormatJsonReport(MakeReportHeader(o, "1", 0), {}, e));
  EXPECT_EQ(v["start"]["timestamp"].string, "1970-01-01T00:00:00Z");
  EXPECT_EQ(v["start"]["options"]["tos"].type, JsonValue::Type::kNull);
  EXPECT_EQ(v["start"]["options"]["cc"].type, JsonValue::Type::kNull);
  EXPECT_EQ(v["start"]["options"]["window"].number, 0);
  EXPECT_EQ(v["start"]["options"]["hash"].type, JsonValue::Type::kNull);
  EXPECT_TRUE(v["intervals"].array.empty());
  EXPECT_EQ(v["end"]["bits_per_second"].number, 0);  // no time: no rate, not NaN
  EXPECT_EQ(v["error"].string, "dst: No space left on device");
}

TEST(CsvReportTest, HeaderAndOneRowPerStream) {
  EXPECT_EQ(CsvHeader(), "time,stream,bytes,rate_Bps,rtt_us,cwnd,retransmits,active_streams\n");
  std::vector<ReportInterval> ivs = SampleIntervals();
  EXPECT_EQ(FormatCsvRows(ivs[0], 1700000000.0),
            "1700000001.100,0,600,545,100,10,0,0\n"
            "1700000001.100,1,500,455,120,12,3,0\n");
  ReportInterval no_streams{0, 1, 100, {}};
  EXPECT_EQ(FormatCsvRows(no_streams, 0), "");
  ReportInterval no_time{2, 2, 0, {{5, 10, 1, 2, 3}}, 7};
  EXPECT_EQ(FormatCsvRows(no_time, 0), "2.000,5,10,0,1,2,3,7\n");
}

}  // namespace
}  // namespace braid
