#include "proto/control_message.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "braid/error.h"
#include "braid/file_entry.h"
#include "braid/wire.h"
#include "expect_file_entry.h"

namespace braid {
namespace {

using Bytes = std::vector<std::uint8_t>;

template <std::size_t N>
std::array<std::uint8_t, N> Pattern(std::uint8_t start) {
  std::array<std::uint8_t, N> a{};
  for (std::size_t i = 0; i < N; ++i) a[i] = static_cast<std::uint8_t>(start + i * 7);
  return a;
}

/// Decodes `bytes` and returns the error code thrown; fails the test when it
/// decodes or throws anything other than a BraidError.
ErrorCode DecodeError(const Bytes& bytes) {
  try {
    ControlMessage m = DecodeMessage(bytes);
    ADD_FAILURE() << "decoded a " << MessageName(m) << " from hostile input of " << bytes.size()
                  << " bytes";
  } catch (const BraidError& e) {
    return e.code();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "non-BraidError exception: " << e.what();
  }
  return ErrorCode::kOk;
}

template <typename T>
T RoundTrip(const T& message) {
  Bytes bytes = EncodeMessage(message);
  ControlMessage decoded = DecodeMessage(bytes);
  const T* out = std::get_if<T>(&decoded);
  if (out == nullptr) {
    ADD_FAILURE() << "decoded as " << MessageName(decoded);
    return T{};
  }
  return *out;
}

void ExpectParamsEq(const TransferParams& a, const TransferParams& b) {
  EXPECT_EQ(a.streams, b.streams);
  EXPECT_EQ(a.block_size, b.block_size);
  EXPECT_EQ(a.window, b.window);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.secret, b.secret);
  EXPECT_EQ(a.session, b.session);
  EXPECT_EQ(a.cipher, b.cipher);
  EXPECT_EQ(a.direct, b.direct);
  EXPECT_EQ(a.sparse_zeros, b.sparse_zeros);
}

TransferParams SampleParams() {
  TransferParams p;
  p.streams = 17;
  p.block_size = 3u << 20;
  p.window = 0x0123456789ABCDEFull;
  p.hash = HashAlgorithm::kSha256;
  p.secret = Pattern<kSecretSize>(1);
  p.session = Pattern<kSessionIdSize>(200);
  return p;
}

FileEntry RegularEntry(std::uint32_t id, std::string path) {
  FileEntry e;
  e.id = id;
  e.top = 3;
  e.kind = FileKind::kRegular;
  e.path = std::move(path);
  e.size = 0x1122334455667788ull;
  e.mode = 0755;
  e.mtime_sec = 1700000000;
  e.mtime_nsec = 999999999;
  return e;
}

FileList SampleFileList() {
  FileList m;
  m.last = true;
  m.entries.push_back(RegularEntry(0, "top/file.bin"));
  FileEntry dir;
  dir.id = 1;
  dir.top = 0;
  dir.kind = FileKind::kDirectory;
  dir.path = "top/sub";
  dir.mode = 07777;
  dir.mtime_sec = -12345;  // before 1970
  dir.mtime_nsec = 0;
  m.entries.push_back(dir);
  FileEntry link;
  link.id = 2;
  link.top = 65535;
  link.kind = FileKind::kSymlink;
  link.path = "top/sub/link";
  link.size = 0;
  link.mode = 0777;
  link.link_target = "../../elsewhere/x";  // a link may point anywhere
  m.entries.push_back(link);
  FileEntry stream;
  stream.id = 3;
  stream.kind = FileKind::kStream;
  stream.path = "stdin";
  stream.size = kUnknownSize;
  stream.mode = 0;
  m.entries.push_back(stream);
  return m;
}

SinkOpen SampleSinkOpen() {
  SinkOpen m;
  m.target = "/data/dst dir";
  m.top_count = 513;
  m.force = true;
  m.preserve = false;
  m.recursive = true;
  m.listen_address = "10.1.2.3";
  m.params = SampleParams();
  m.existing = ExistingRule::kSizeOnly;
  m.remote_paths = true;
  return m;
}

SourceStart SampleSourceStart() {
  SourceStart m;
  m.addresses = {"192.168.0.1", "fe80::1%eth0", "host.example"};
  m.port = 65535;
  m.params = SampleParams();
  m.params.hash = HashAlgorithm::kNone;
  m.params.streams = 64;
  return m;
}

FileDone SampleFileDone() {
  FileDone m;
  m.id = 0xFFFFFFFFu;
  m.size = 1234567890123ull;
  m.hash = HashAlgorithm::kSha256;
  m.source_digest = MakeDigestValue(Pattern<32>(5));
  m.sink_digest = MakeDigestValue(Pattern<32>(99));
  m.final_path = "/data/dst/top/file.bin";
  m.unchanged = true;
  return m;
}

Progress SampleProgress() {
  Progress m{1ull << 40, 77, 9, {}, 5, "probe 4->8", "top/dir/file.bin"};
  m.stream_samples.push_back({0, 1ull << 33, 1234, 56, 789, 3, 0x0102030405060708ull});
  m.stream_samples.push_back({63, 0xFFFFFFFFFFFFFFFFull, 0xFFFFFFFFu, 0, 1, 0xFFFFFFFFu, 0});
  return m;
}

/// One valid message of every type, with fields away from their defaults.
std::vector<ControlMessage> AllSamples() {
  std::vector<ControlMessage> v;
  v.push_back(Hello{kControlMagic, kProtocolVersion, "9.8.7", "user@host"});
  v.push_back(HelloReply{kProtocolVersion, "9.8.7", "node-1", "10.0.0.5"});
  v.push_back(SourceOpen{{"a", "b/c", "/abs/path ok here"}, true, 42});
  v.push_back(SampleFileList());
  v.push_back(SampleSinkOpen());
  v.push_back(SinkReady{{"10.0.0.1", "10.0.0.2"}, 40000, {}, 0, 0});
  v.push_back(SampleSourceStart());
  v.push_back(SampleProgress());
  v.push_back(SampleFileDone());
  v.push_back(Done{~0ull, 5, 64, 0, 0});
  v.push_back(ErrorMessage{ErrorCode::kDiskFull, "dst: No space left on device"});
  v.push_back(Abort{"interrupted by user"});
  v.push_back(Bye{});
  v.push_back(Warning{"something odd"});
  v.push_back(Kept{123, 2});
  v.push_back(SourceReady{{"10.0.0.7", "fd00::7"}, 40001});
  v.push_back(SinkConnect{{"10.0.0.7"}, 40001});
  v.push_back(Note{"dtn:~/x is /home/u/x"});
  v.push_back(FeedHello{std::string(kFeedTokenLength, 'a')});
  v.push_back(FeedPlan{1, "/data/run42"});
  v.push_back(FeedWait{7, 1u << 20});
  v.push_back(
      FeedHave{7, 2u << 20, false, true, MakeDigestValue(std::vector<std::uint8_t>(16, 9))});
  v.push_back(ProbeOpen{"10.0.0.1", 4, 40000, 40010});
  v.push_back(ProbeReady{{"10.0.0.1"}, 40123});
  v.push_back(ProbeMeasure{{ProbeTarget{{"10.0.0.2", "fd00::2"}, 40124}}});
  v.push_back(ProbeResult{{250, 0}});
  return v;
}

/// A FileList of one entry; the encoder does not validate, so hostile entries encode.
Bytes OneEntryList(const FileEntry& e) {
  FileList m;
  m.entries.push_back(e);
  return EncodeMessage(m);
}

/// Index of the only byte in which two encodings differ.
std::size_t OnlyDifference(const Bytes& a, const Bytes& b) {
  EXPECT_EQ(a.size(), b.size());
  std::vector<std::size_t> diffs;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] != b[i]) diffs.push_back(i);
  }
  EXPECT_EQ(diffs.size(), 1u);
  return diffs.empty() ? 0 : diffs.front();
}

/// Encodes `with_false` and `with_true` (which differ in one boolean), then
/// checks that the byte holding it is 0/1 and that 2 and 0xFF are rejected.
void ExpectBadBooleanRejected(const ControlMessage& with_false, const ControlMessage& with_true,
                              const char* what) {
  SCOPED_TRACE(what);
  Bytes f = EncodeMessage(with_false);
  Bytes t = EncodeMessage(with_true);
  std::size_t at = OnlyDifference(f, t);
  EXPECT_EQ(f[at], 0);
  EXPECT_EQ(t[at], 1);
  EXPECT_NO_THROW(DecodeMessage(f));
  EXPECT_NO_THROW(DecodeMessage(t));
  for (std::uint8_t bad : {std::uint8_t{2}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
    Bytes b = f;
    b[at] = bad;
    EXPECT_EQ(DecodeError(b), ErrorCode::kProtocol) << "boolean byte " << int{bad};
  }
}

// ---------------------------------------------------------------- round trips

TEST(ControlMessageTest, SamplesCoverEveryType) {
  std::set<std::size_t> indices;
  for (const auto& m : AllSamples()) indices.insert(m.index());
  EXPECT_EQ(indices.size(), std::variant_size_v<ControlMessage>);
}

TEST(ControlMessageTest, TypeCodeLeadsEveryEncoding) {
  for (const auto& m : AllSamples()) {
    Bytes b = EncodeMessage(m);
    ASSERT_GE(b.size(), 2u);
    EXPECT_EQ((b[0] << 8) | b[1], static_cast<int>(m.index()) + 1) << MessageName(m);
    ControlMessage d = DecodeMessage(b);
    EXPECT_EQ(d.index(), m.index()) << MessageName(m);
  }
}

TEST(ControlMessageTest, MessageNames) {
  EXPECT_STREQ(MessageName(Hello{}), "Hello");
  EXPECT_STREQ(MessageName(SinkReady{}), "SinkReady");
  EXPECT_STREQ(MessageName(ErrorMessage{}), "Error");
  EXPECT_STREQ(MessageName(Warning{}), "Warning");
  EXPECT_STREQ(MessageName(Bye{}), "Bye");
  EXPECT_STREQ(MessageName(Note{}), "Note");
}

TEST(ControlMessageTest, HelloRoundTrip) {
  Hello in{kControlMagic, kProtocolVersion, "1.2.3", "alice@server.example"};
  Hello out = RoundTrip(in);
  EXPECT_EQ(out.magic, kControlMagic);
  EXPECT_EQ(out.version, kProtocolVersion);
  EXPECT_EQ(out.braid_version, "1.2.3");
  EXPECT_EQ(out.label, in.label);
  EXPECT_EQ(RoundTrip(Hello{}).label, "");
  EXPECT_EQ(RoundTrip(Hello{}).version, kProtocolVersion);
  EXPECT_EQ(RoundTrip(Hello{}).braid_version, BraidVersion());
}

TEST(ControlMessageTest, HelloReplyRoundTrip) {
  HelloReply in{kProtocolVersion, "1.2.3", "node.example", "fe80::1"};
  HelloReply out = RoundTrip(in);
  EXPECT_EQ(out.version, kProtocolVersion);
  EXPECT_EQ(out.braid_version, "1.2.3");
  EXPECT_EQ(out.host_label, in.host_label);
  EXPECT_EQ(out.ssh_address, in.ssh_address);
}

/// A later protocol version may change everything after braid_version: a
/// peer still reads both versions, to name them, and nothing more.
TEST(ControlMessageTest, HelloOfAnotherVersionIsReadAsFarAsItsVersions) {
  for (MessageType type : {MessageType::kHello, MessageType::kHelloReply}) {
    WireWriter w;
    w.U16(static_cast<std::uint16_t>(type));
    if (type == MessageType::kHello) w.U32(kControlMagic);
    w.U16(kProtocolVersion + 1);
    w.String("9.0.0");
    w.U64(0x0102030405060708ull);  // whatever that version has next
    const ControlMessage m = DecodeMessage(w.Take());
    const std::uint16_t version =
        type == MessageType::kHello ? std::get<Hello>(m).version : std::get<HelloReply>(m).version;
    const std::string braid = type == MessageType::kHello ? std::get<Hello>(m).braid_version
                                                          : std::get<HelloReply>(m).braid_version;
    EXPECT_EQ(version, kProtocolVersion + 1);
    EXPECT_EQ(braid, "9.0.0");
  }
  // Version 5 and before had no braid_version: the label is not taken for one.
  WireWriter old;
  old.U16(static_cast<std::uint16_t>(MessageType::kHello));
  old.U32(kControlMagic);
  old.U16(5);
  old.String("host");
  const Hello hello = std::get<Hello>(DecodeMessage(old.Take()));
  EXPECT_EQ(hello.version, 5);
  EXPECT_EQ(hello.braid_version, "");
  // Our own version is decoded whole: trailing bytes are still refused.
  WireWriter same;
  same.U16(static_cast<std::uint16_t>(MessageType::kHelloReply));
  same.U16(kProtocolVersion);
  same.String("1.0");
  same.String("node");
  same.String("");
  same.U8(0);
  EXPECT_EQ(DecodeError(same.Take()), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, SourceOpenRoundTrip) {
  SourceOpen in{{"one", "two/three", "/abs", "with space"}, true, 0xFFFFFFFFFFull};
  SourceOpen out = RoundTrip(in);
  EXPECT_EQ(out.paths, in.paths);
  EXPECT_TRUE(out.recursive);
  ASSERT_TRUE(out.device_size.has_value());
  EXPECT_EQ(*out.device_size, 0xFFFFFFFFFFull);

  SourceOpen zero{{"x"}, false, 0};
  SourceOpen zero_out = RoundTrip(zero);
  ASSERT_TRUE(zero_out.device_size.has_value());
  EXPECT_EQ(*zero_out.device_size, 0u);
  EXPECT_FALSE(zero_out.recursive);

  SourceOpen none{{"x"}, false, std::nullopt};
  EXPECT_FALSE(RoundTrip(none).device_size.has_value());
  EXPECT_FALSE(RoundTrip(none).remote_paths);
  none.remote_paths = true;
  EXPECT_TRUE(RoundTrip(none).remote_paths);
  EXPECT_TRUE(RoundTrip(none).filters.empty());
}

TEST(ControlMessageTest, SourceOpenCarriesTheFilterRulesInOrder) {
  SourceOpen in{{"tree"}, true, std::nullopt};
  in.filters = {{true, "keep.tmp"}, {false, "*.tmp"}, {false, "/tree/build/"}};
  EXPECT_EQ(RoundTrip(in).filters, in.filters);
}

TEST(ControlMessageTest, SourceOpenCarriesHardLinksAndTheGrowingQuietTime) {
  SourceOpen in{{"tree"}, true, std::nullopt};
  in.hard_links = true;
  in.growing_ms = 5000;
  SourceOpen out = RoundTrip(in);
  EXPECT_TRUE(out.hard_links);
  EXPECT_EQ(out.growing_ms, 5000u);
  in.growing_ms = kMaxGrowingMs + 1;
  EXPECT_THROW(DecodeMessage(EncodeMessage(in)), BraidError);
}

TEST(ControlMessageTest, SourceOpenWithTooManyFilterRulesIsRefused) {
  SourceOpen in{{"tree"}, true, std::nullopt};
  in.filters.assign(kMaxFilterRules, PathFilterRule{false, "x"});
  EXPECT_EQ(RoundTrip(in).filters.size(), kMaxFilterRules);
  in.filters.push_back({false, "x"});
  EXPECT_THROW(DecodeMessage(EncodeMessage(in)), BraidError);
}

TEST(ControlMessageTest, SourceOpenIgnoresSizeWhenAbsent) {
  WireWriter w;
  w.U16(static_cast<std::uint16_t>(MessageType::kSourceOpen));
  w.U32(1);
  w.String("p");
  w.U8(0);
  w.U8(0);  // has_size = false
  w.U64(12345);
  w.U8(1);       // follow_symlinks
  w.U8(0);       // remote_paths
  w.U8(0);       // hard_links
  w.U32(0);      // growing_ms
  w.U8(0);       // command
  w.U16(0);      // no filters
  w.String("");  // no feed to follow
  ControlMessage m = DecodeMessage(w.Take());
  ASSERT_TRUE(std::holds_alternative<SourceOpen>(m));
  EXPECT_FALSE(std::get<SourceOpen>(m).device_size.has_value());
  EXPECT_TRUE(std::get<SourceOpen>(m).follow_symlinks);
}

TEST(ControlMessageTest, FileListRoundTrip) {
  FileList in = SampleFileList();
  FileList out = RoundTrip(in);
  EXPECT_TRUE(out.last);
  ASSERT_EQ(out.entries.size(), in.entries.size());
  for (std::size_t i = 0; i < in.entries.size(); ++i) {
    SCOPED_TRACE(i);
    ExpectSameListedFields(out.entries[i], in.entries[i]);
  }
  FileList empty;
  FileList empty_out = RoundTrip(empty);
  EXPECT_FALSE(empty_out.last);
  EXPECT_TRUE(empty_out.entries.empty());
  EXPECT_EQ(empty_out.not_listed, 0u);
  in.not_listed = 0xFFFFFFFFu;
  EXPECT_EQ(RoundTrip(in).not_listed, 0xFFFFFFFFu);
}

TEST(ControlMessageTest, FileListExtremeFieldValues) {
  FileEntry e = RegularEntry(0xFFFFFFFFu, std::string(kMaxPathLength, 'p'));
  e.top = 0xFFFF;
  e.size = kUnknownSize - 1;
  e.mtime_sec = std::numeric_limits<std::int64_t>::min();
  e.mtime_nsec = 0;
  FileList in;
  in.entries.push_back(e);
  FileList out = RoundTrip(in);
  ASSERT_EQ(out.entries.size(), 1u);
  ExpectSameListedFields(out.entries[0], e);

  e.mtime_sec = std::numeric_limits<std::int64_t>::max();
  in.entries[0] = e;
  out = RoundTrip(in);
  ASSERT_EQ(out.entries.size(), 1u);
  EXPECT_EQ(out.entries[0].mtime_sec, std::numeric_limits<std::int64_t>::max());
}

TEST(ControlMessageTest, SinkOpenRoundTrip) {
  SinkOpen in = SampleSinkOpen();
  SinkOpen out = RoundTrip(in);
  EXPECT_EQ(out.target, in.target);
  EXPECT_EQ(out.top_count, in.top_count);
  EXPECT_EQ(out.force, in.force);
  EXPECT_EQ(out.preserve, in.preserve);
  EXPECT_EQ(out.recursive, in.recursive);
  EXPECT_EQ(out.listen_address, in.listen_address);
  EXPECT_TRUE(out.remote_paths);
  ExpectParamsEq(out.params, in.params);

  in.force = false;
  in.remote_paths = false;
  in.preserve = true;
  in.recursive = false;
  in.listen_address = "";
  out = RoundTrip(in);
  EXPECT_FALSE(out.force);
  EXPECT_TRUE(out.preserve);
  EXPECT_FALSE(out.recursive);
  EXPECT_EQ(out.listen_address, "");
  EXPECT_FALSE(out.remote_paths);
}

TEST(ControlMessageTest, SinkOpenCarriesTheFsyncPolicy) {
  SinkOpen in = SampleSinkOpen();
  EXPECT_EQ(RoundTrip(in).fsync, FsyncPolicy::kData);
  for (FsyncPolicy p : {FsyncPolicy::kNone, FsyncPolicy::kData, FsyncPolicy::kDataAndDirs}) {
    in.fsync = p;
    EXPECT_EQ(RoundTrip(in).fsync, p);
  }
  // The policy is the fourth byte from the end (before the rule for existing
  // files, remote_paths and command): a value this build does not know is refused.
  std::vector<std::uint8_t> bytes = EncodeMessage(in);
  for (std::uint8_t bad : {std::uint8_t{3}, std::uint8_t{0xff}}) {
    bytes[bytes.size() - 4] = bad;
    EXPECT_EQ(DecodeError(bytes), ErrorCode::kProtocol) << int{bad};
  }
}

TEST(ControlMessageTest, SinkReadyRoundTrip) {
  SinkReady in{{"10.0.0.1", "::1"}, 1, {}, 0, 0};
  SinkReady out = RoundTrip(in);
  EXPECT_EQ(out.addresses, in.addresses);
  EXPECT_EQ(out.port, 1);
}

TEST(ControlMessageTest, SourceStartRoundTrip) {
  SourceStart in = SampleSourceStart();
  SourceStart out = RoundTrip(in);
  EXPECT_EQ(out.addresses, in.addresses);
  EXPECT_EQ(out.port, in.port);
  ExpectParamsEq(out.params, in.params);
}

TEST(ControlMessageTest, ProgressRoundTrip) {
  Progress out =
      RoundTrip(Progress{0xFEDCBA9876543210ull, 0x0102030405060708ull, 0xABCD, {}, 0, "", ""});
  EXPECT_EQ(out.bytes, 0xFEDCBA9876543210ull);
  EXPECT_EQ(out.current_path, "");
  EXPECT_EQ(RoundTrip(SampleProgress()).current_path, "top/dir/file.bin");
  EXPECT_EQ(out.files_done, 0x0102030405060708ull);
  EXPECT_EQ(out.streams, 0xABCD);
  EXPECT_TRUE(out.stream_samples.empty());
}

TEST(ControlMessageTest, ProgressStreamSamplesRoundTrip) {
  Progress in = SampleProgress();
  Progress out = RoundTrip(in);
  ASSERT_EQ(out.stream_samples.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    SCOPED_TRACE(i);
    const StreamSample& a = in.stream_samples[i];
    const StreamSample& b = out.stream_samples[i];
    EXPECT_EQ(b.index, a.index);
    EXPECT_EQ(b.bytes, a.bytes);
    EXPECT_EQ(b.rtt_us, a.rtt_us);
    EXPECT_EQ(b.min_rtt_us, a.min_rtt_us);
    EXPECT_EQ(b.cwnd, a.cwnd);
    EXPECT_EQ(b.retrans, a.retrans);
    EXPECT_EQ(b.delivery_rate, a.delivery_rate);
  }
}

TEST(ControlMessageTest, ProgressWithTooManyStreamSamplesIsRejected) {
  Progress m;
  for (std::uint16_t i = 0; i < kMaxStreamSamples; ++i) {
    m.stream_samples.push_back({i, 0, 0, 0, 0, 0, 0});
  }
  EXPECT_EQ(RoundTrip(m).stream_samples.size(), kMaxStreamSamples);
  m.stream_samples.push_back(m.stream_samples.front());
  EXPECT_EQ(DecodeError(EncodeMessage(m)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, ProgressStreamIndexOutOfRangeIsRejected) {
  Progress m;
  m.stream_samples.push_back({63, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(RoundTrip(m).stream_samples.at(0).index, 63);
  m.stream_samples[0].index = 64;
  EXPECT_EQ(DecodeError(EncodeMessage(m)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, FileDoneRoundTrip) {
  FileDone in = SampleFileDone();
  FileDone out = RoundTrip(in);
  EXPECT_EQ(out.id, in.id);
  EXPECT_EQ(out.size, in.size);
  EXPECT_EQ(out.hash, in.hash);
  EXPECT_EQ(out.source_digest, in.source_digest);
  EXPECT_EQ(out.sink_digest, in.sink_digest);
  EXPECT_EQ(out.final_path, in.final_path);
  EXPECT_TRUE(out.unchanged);
  in.unchanged = false;
  EXPECT_FALSE(RoundTrip(in).unchanged);
  in.hash = HashAlgorithm::kXxh128;
  in.source_digest = MakeDigestValue(Pattern<16>(7));
  in.sink_digest = in.source_digest;
  EXPECT_EQ(RoundTrip(in).sink_digest, in.sink_digest);
  in.hash = HashAlgorithm::kNone;
  in.source_digest = in.sink_digest = DigestValue{};
  EXPECT_EQ(RoundTrip(in).hash, HashAlgorithm::kNone);
}

// The hash byte of params and FileDone: the values of HashAlgorithm decode, any
// other is a protocol error, not a silent "no hash".
void ExpectUnknownHashRejected(const ControlMessage& md5, const ControlMessage& sha256,
                               const char* what) {
  SCOPED_TRACE(what);
  Bytes a = EncodeMessage(md5);
  Bytes b = EncodeMessage(sha256);
  std::size_t at = OnlyDifference(a, b);
  EXPECT_EQ(a[at], 1);
  EXPECT_EQ(b[at], 2);
  for (std::uint8_t bad : {std::uint8_t{4}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
    Bytes c = a;
    c[at] = bad;
    EXPECT_EQ(DecodeError(c), ErrorCode::kProtocol) << "hash byte " << int{bad};
  }
}

TEST(ControlMessageTest, UnknownHashAlgorithmInParamsIsRejected) {
  SinkOpen a = SampleSinkOpen();
  SinkOpen b = a;
  a.params.hash = HashAlgorithm::kMd5;
  b.params.hash = HashAlgorithm::kSha256;
  ExpectUnknownHashRejected(a, b, "SinkOpen");
  SourceStart c = SampleSourceStart();
  SourceStart d = c;
  c.params.hash = HashAlgorithm::kMd5;
  d.params.hash = HashAlgorithm::kSha256;
  ExpectUnknownHashRejected(c, d, "SourceStart");
  c.params.hash = HashAlgorithm::kXxh128;
  EXPECT_EQ(RoundTrip(c).params.hash, HashAlgorithm::kXxh128);
}

TEST(ControlMessageTest, ParamsCarryTheCipher) {
  for (Cipher cipher :
       {Cipher::kNone, Cipher::kAes128Gcm, Cipher::kAes256Gcm, Cipher::kChacha20Poly1305}) {
    SinkOpen s = SampleSinkOpen();
    s.params.cipher = cipher;
    EXPECT_EQ(RoundTrip(s).params.cipher, cipher) << CipherName(cipher);
    SourceStart t = SampleSourceStart();
    t.params.cipher = cipher;
    EXPECT_EQ(RoundTrip(t).params.cipher, cipher) << CipherName(cipher);
  }
  EXPECT_EQ(TransferParams{}.cipher, Cipher::kAes128Gcm);  // sealed unless told otherwise
}

TEST(ControlMessageTest, ParamsCarryTheDirectBitsAndRefuseOthers) {
  for (const std::uint8_t direct :
       {std::uint8_t{0}, kDirectReads, kDirectWrites, std::uint8_t{kDirectReads | kDirectWrites}}) {
    SinkOpen s = SampleSinkOpen();
    s.params.direct = direct;
    EXPECT_EQ(RoundTrip(s).params.direct, direct);
    SourceStart t = SampleSourceStart();
    t.params.direct = direct;
    EXPECT_EQ(RoundTrip(t).params.direct, direct);
  }
  SourceStart bad = SampleSourceStart();
  bad.params.direct = 4;
  EXPECT_EQ(DecodeError(EncodeMessage(bad)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, ParamsCarryTheSparseOption) {
  for (bool on : {false, true}) {
    SinkOpen s = SampleSinkOpen();
    s.params.sparse_zeros = on;
    EXPECT_EQ(RoundTrip(s).params.sparse_zeros, on);
    SourceStart t = SampleSourceStart();
    t.params.sparse_zeros = on;
    EXPECT_EQ(RoundTrip(t).params.sparse_zeros, on);
  }
}

// The cipher byte: a value no version defines is a protocol error, never "clear".
TEST(ControlMessageTest, UnknownCipherIsRejected) {
  SinkOpen a = SampleSinkOpen();
  SinkOpen b = a;
  a.params.cipher = Cipher::kAes128Gcm;
  b.params.cipher = Cipher::kAes256Gcm;
  Bytes x = EncodeMessage(a);
  std::size_t at = OnlyDifference(x, EncodeMessage(b));
  EXPECT_EQ(x[at], 1);
  for (std::uint8_t bad : {std::uint8_t{4}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
    Bytes c = x;
    c[at] = bad;
    EXPECT_EQ(DecodeError(c), ErrorCode::kProtocol) << "cipher byte " << int{bad};
  }
}

TEST(ControlMessageTest, FileDoneDigestOfTheWrongLengthIsRejected) {
  FileDone m = SampleFileDone();  // sha256: 32-byte digests
  Bytes good = EncodeMessage(m);
  // type(2) id(4) size(8) hash(1), then the source digest's length byte.
  constexpr std::size_t kLengthAt = 2 + 4 + 8 + 1;
  ASSERT_EQ(good[kLengthAt], 32);
  for (std::uint8_t n :
       {std::uint8_t{0}, std::uint8_t{16}, std::uint8_t{31}, std::uint8_t{33}, std::uint8_t{255}}) {
    Bytes bad = good;
    bad[kLengthAt] = n;
    EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol) << "length " << int{n};
  }
  // An MD5 FileDone that claims sha256 lengths, and one with no hash but a digest.
  Bytes md5 = good;
  md5[kLengthAt - 1] = 1;
  EXPECT_EQ(DecodeError(md5), ErrorCode::kProtocol);
  Bytes none = good;
  none[kLengthAt - 1] = 0;
  EXPECT_EQ(DecodeError(none), ErrorCode::kProtocol);
  Bytes unknown = good;
  unknown[kLengthAt - 1] = 9;
  EXPECT_EQ(DecodeError(unknown), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, DoneRoundTrip) {
  Done out = RoundTrip(Done{11, 0xFFFFFFFFFFFFFFFFull, 3, 4, 5});
  EXPECT_EQ(out.bytes, 11u);
  EXPECT_EQ(out.files, 0xFFFFFFFFFFFFFFFFull);
  EXPECT_EQ(out.streams, 3);
  EXPECT_EQ(out.wire_bytes, 4u);
  EXPECT_EQ(out.same_bytes, 5u);
}

TEST(ControlMessageTest, ErrorRoundTripForEveryCode) {
  for (std::uint16_t c = 1; c <= kMaxErrorCode; ++c) {
    ErrorMessage in{static_cast<ErrorCode>(c), "message " + std::to_string(c)};
    ErrorMessage out = RoundTrip(in);
    EXPECT_EQ(out.code, in.code);
    EXPECT_EQ(out.message, in.message);
  }
}

TEST(ControlMessageTest, AbortByeWarningRoundTrip) {
  EXPECT_EQ(RoundTrip(Abort{"stop now"}).reason, "stop now");
  EXPECT_EQ(RoundTrip(Warning{"careful"}).message, "careful");
  EXPECT_EQ(RoundTrip(Warning{std::string(kMaxTextLength, 'w')}).message.size(), kMaxTextLength);
  EXPECT_EQ(RoundTrip(Note{"dtn:x is /home/u/x"}).message, "dtn:x is /home/u/x");
  Bytes bye = EncodeMessage(Bye{});
  EXPECT_EQ(bye, (Bytes{0, static_cast<std::uint8_t>(MessageType::kBye)}));
  EXPECT_TRUE(std::holds_alternative<Bye>(DecodeMessage(bye)));
}

TEST(ControlMessageTest, ParamsBoundariesAccepted) {
  SourceStart m = SampleSourceStart();
  for (std::uint16_t s : {std::uint16_t{1}, std::uint16_t{64}}) {
    for (std::uint32_t b : {4096u, 64u << 20}) {
      m.params.streams = s;
      m.params.block_size = b;
      SourceStart out = RoundTrip(m);
      EXPECT_EQ(out.params.streams, s);
      EXPECT_EQ(out.params.block_size, b);
    }
  }
}

// ---------------------------------------------------------------- hostile input

TEST(ControlMessageTest, EveryTruncationIsRejected) {
  for (const auto& m : AllSamples()) {
    SCOPED_TRACE(MessageName(m));
    Bytes full = EncodeMessage(m);
    ASSERT_NO_THROW(DecodeMessage(full));
    for (std::size_t n = 0; n < full.size(); ++n) {
      // An exact-size copy, so reading one byte too far is caught by sanitizers.
      Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_EQ(DecodeError(prefix), ErrorCode::kProtocol) << "prefix of " << n;
    }
  }
}

TEST(ControlMessageTest, TrailingGarbageIsRejected) {
  for (const auto& m : AllSamples()) {
    SCOPED_TRACE(MessageName(m));
    Bytes b = EncodeMessage(m);
    b.push_back(0);
    EXPECT_EQ(DecodeError(b), ErrorCode::kProtocol);
    b.insert(b.end(), {0xDE, 0xAD, 0xBE, 0xEF});
    EXPECT_EQ(DecodeError(b), ErrorCode::kProtocol);
  }
}

TEST(ControlMessageTest, UnknownTypeIsRejected) {
  for (std::uint16_t type :
       std::initializer_list<std::uint16_t>{0, 19, 20, 0x0100, 0x8000, 0xFFFF}) {
    WireWriter w;
    w.U16(type);
    EXPECT_EQ(DecodeError(w.data()), ErrorCode::kProtocol) << type;
    w.U32(0);
    EXPECT_EQ(DecodeError(w.data()), ErrorCode::kProtocol) << type;
  }
}

TEST(ControlMessageTest, OversizedMessageIsRejected) {
  Bytes big(kMaxControlMessage + 1, 0);
  big[1] = static_cast<std::uint8_t>(MessageType::kWarning);
  EXPECT_EQ(DecodeError(big), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, HelloWithWrongMagicIsRejected) {
  Hello h;
  h.magic = kControlMagic ^ 1;
  EXPECT_EQ(DecodeError(EncodeMessage(h)), ErrorCode::kProtocol);
  h.magic = 0;
  EXPECT_EQ(DecodeError(EncodeMessage(h)), ErrorCode::kProtocol);
}

/// Hello, HelloReply, Error, Abort or Warning with `text` (the label, host
/// label or text) of any length, written by hand: our encoder cuts long text,
/// another peer's might not.
Bytes RawWithText(MessageType type, const std::string& text) {
  WireWriter w;
  w.U16(static_cast<std::uint16_t>(type));
  if (type == MessageType::kHello) w.U32(kControlMagic);
  if (type == MessageType::kHello || type == MessageType::kHelloReply) {
    w.U16(kProtocolVersion);
    w.String("0.1.0");  // braid_version
  }
  if (type == MessageType::kError) w.U16(static_cast<std::uint16_t>(ErrorCode::kInternal));
  w.String(text);
  if (type == MessageType::kHelloReply) w.String("");  // ssh_address
  return w.Take();
}

TEST(ControlMessageTest, StringLimitsAreEnforced) {
  EXPECT_EQ(
      RoundTrip(Hello{kControlMagic, kProtocolVersion, "1", std::string(kMaxLabelLength, 'l')})
          .label,
      std::string(kMaxLabelLength, 'l'));
  ASSERT_NO_THROW(DecodeMessage(RawWithText(MessageType::kHello, "ok")));
  EXPECT_EQ(DecodeError(RawWithText(MessageType::kHello, std::string(kMaxLabelLength + 1, 'l'))),
            ErrorCode::kProtocol);
  ASSERT_NO_THROW(DecodeMessage(RawWithText(MessageType::kHelloReply, "ok")));
  EXPECT_EQ(
      DecodeError(RawWithText(MessageType::kHelloReply, std::string(kMaxLabelLength + 1, 'h'))),
      ErrorCode::kProtocol);
  EXPECT_EQ(
      DecodeError(EncodeMessage(HelloReply{kProtocolVersion, "1", "", std::string(257, 'a')})),
      ErrorCode::kProtocol);
  for (MessageType type :
       {MessageType::kWarning, MessageType::kAbort, MessageType::kError, MessageType::kNote}) {
    ASSERT_NO_THROW(DecodeMessage(RawWithText(type, std::string(kMaxTextLength, 't'))));
    EXPECT_EQ(DecodeError(RawWithText(type, std::string(kMaxTextLength + 1, 't'))),
              ErrorCode::kProtocol)
        << static_cast<int>(type);
  }
  EXPECT_EQ(DecodeError(EncodeMessage(
                SourceOpen{{std::string(kMaxPathLength + 1, 'p')}, false, std::nullopt})),
            ErrorCode::kProtocol);
  SinkOpen s = SampleSinkOpen();
  s.target = std::string(kMaxPathLength + 1, 't');
  EXPECT_EQ(DecodeError(EncodeMessage(s)), ErrorCode::kProtocol);
  s = SampleSinkOpen();
  s.listen_address = std::string(257, 'x');
  EXPECT_EQ(DecodeError(EncodeMessage(s)), ErrorCode::kProtocol);
  FileDone d = SampleFileDone();
  d.final_path = std::string(kMaxPathLength + 1, 'f');
  EXPECT_EQ(DecodeError(EncodeMessage(d)), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(SinkReady{{std::string(257, 'a')}, 1, {}, 0, 0})),
            ErrorCode::kProtocol);
}

/// True when `s` is whole UTF-8 characters (lead byte and all its continuation bytes).
bool IsWholeUtf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80           ? 1
                    : (c >> 5) == 0x6  ? 2
                    : (c >> 4) == 0xE  ? 3
                    : (c >> 3) == 0x1E ? 4
                                       : 0;
    if (n == 0 || n > s.size() - i) return false;
    for (std::size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += n;
  }
  return true;
}

/// `out` is `in` cut to at most `limit` bytes: whole characters of its start
/// (at most 3 bytes, a part of one character, short of the limit), then "...".
void ExpectCut(const std::string& in, const std::string& out, std::size_t limit) {
  ASSERT_LE(out.size(), limit);
  ASSERT_GE(out.size(), limit - 3);
  ASSERT_TRUE(out.ends_with("...")) << out.substr(out.size() - 10);
  std::string kept = out.substr(0, out.size() - 3);
  EXPECT_EQ(in.substr(0, kept.size()), kept);
  EXPECT_TRUE(IsWholeUtf8(kept));
}

/// `n` bytes of letters, so a cut in the wrong place shows.
std::string Letters(std::size_t n) {
  std::string s(n, ' ');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + i % 26);
  return s;
}

TEST(ControlMessageTest, LongTextIsCutToTheLimitAndMarked) {
  const std::string long_text = Letters(20000);
  std::string error = RoundTrip(ErrorMessage{ErrorCode::kTargetUnwritable, long_text}).message;
  std::string warning = RoundTrip(Warning{long_text}).message;
  std::string abort = RoundTrip(Abort{long_text}).reason;
  for (const std::string* out : {&error, &warning, &abort}) {
    EXPECT_EQ(out->size(), kMaxTextLength);  // ASCII: cut exactly at the limit
    ExpectCut(long_text, *out, kMaxTextLength);
  }
  // At the limit nothing is cut.
  EXPECT_EQ(RoundTrip(Warning{Letters(kMaxTextLength)}).message, Letters(kMaxTextLength));
}

TEST(ControlMessageTest, CutNeverSplitsAUtf8Character) {
  // Each character once across the cut at each of its byte positions.
  for (const std::string ch : {"\u00e9", "\u20ac", "\U0001F600"}) {
    for (std::size_t shift = 0; shift < ch.size(); ++shift) {
      SCOPED_TRACE(std::to_string(ch.size()) + "-byte character, shift " + std::to_string(shift));
      std::string text(shift, 'x');
      while (text.size() < 20000) text += ch;
      std::string error = RoundTrip(ErrorMessage{ErrorCode::kInternal, text}).message;
      std::string warning = RoundTrip(Warning{text}).message;
      ExpectCut(text, error, kMaxTextLength);
      ExpectCut(text, warning, kMaxTextLength);
    }
  }
}

TEST(ControlMessageTest, LongLabelsAreCutToTheirLimit) {
  const std::string ascii = Letters(1000);
  std::string label = RoundTrip(Hello{kControlMagic, kProtocolVersion, "1", ascii}).label;
  EXPECT_EQ(label.size(), kMaxLabelLength);
  ExpectCut(ascii, label, kMaxLabelLength);
  ExpectCut(ascii, RoundTrip(HelloReply{kProtocolVersion, "1", ascii, "::1"}).host_label,
            kMaxLabelLength);
  // 500 two-byte characters: byte 253, where the cut would fall, is inside one.
  std::string accents;
  for (int i = 0; i < 500; ++i) accents += "\u00e9";
  label = RoundTrip(Hello{kControlMagic, kProtocolVersion, "1", accents}).label;
  EXPECT_EQ(label.size(), kMaxLabelLength - 1);
  ExpectCut(accents, label, kMaxLabelLength);
}

TEST(ControlMessageTest, ListCountLimitsAreEnforced) {
  SourceOpen many;
  many.paths.assign(kMaxSources, "p");
  EXPECT_NO_THROW(DecodeMessage(EncodeMessage(many)));
  many.paths.push_back("p");
  EXPECT_EQ(DecodeError(EncodeMessage(many)), ErrorCode::kProtocol);

  SinkReady ready;
  ready.port = 9;
  ready.addresses.assign(kMaxAddresses, "a");
  EXPECT_NO_THROW(DecodeMessage(EncodeMessage(ready)));
  ready.addresses.push_back("a");
  EXPECT_EQ(DecodeError(EncodeMessage(ready)), ErrorCode::kProtocol);

  SourceStart start = SampleSourceStart();
  start.addresses.assign(kMaxAddresses + 1, "a");
  EXPECT_EQ(DecodeError(EncodeMessage(start)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, HugeDeclaredCountsAreRejectedWithoutAllocating) {
  for (std::uint32_t n : {static_cast<std::uint32_t>(kMaxEntriesPerList + 1), 0xFFFFFFFFu,
                          static_cast<std::uint32_t>(kMaxEntriesPerList)}) {
    WireWriter w;
    w.U16(static_cast<std::uint16_t>(MessageType::kFileList));
    w.U8(1);
    w.U32(n);
    EXPECT_EQ(DecodeError(w.data()), ErrorCode::kProtocol) << n;
  }
  for (auto type : {MessageType::kSourceOpen, MessageType::kSinkReady, MessageType::kSourceStart}) {
    WireWriter w;
    w.U16(static_cast<std::uint16_t>(type));
    w.U32(0xFFFFFFFFu);
    EXPECT_EQ(DecodeError(w.data()), ErrorCode::kProtocol);
  }
}

TEST(ControlMessageTest, EmptyAddressOrSourceListsAreRejected) {
  EXPECT_EQ(DecodeError(EncodeMessage(SourceOpen{})), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(SinkReady{{}, 5, {}, 0, 0})), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(SinkReady{{"a"}, 0, {}, 0, 0})), ErrorCode::kProtocol);
  SourceStart s = SampleSourceStart();
  s.port = 0;
  EXPECT_EQ(DecodeError(EncodeMessage(s)), ErrorCode::kProtocol);
  s = SampleSourceStart();
  s.addresses.clear();
  EXPECT_EQ(DecodeError(EncodeMessage(s)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, BadBooleansAreRejected) {
  ExpectBadBooleanRejected(SourceOpen{{"a"}, false, 1}, SourceOpen{{"a"}, true, 1}, "recursive");
  ExpectBadBooleanRejected(SourceOpen{{"a"}, false, std::nullopt}, SourceOpen{{"a"}, false, 0},
                           "has_size");
  ExpectBadBooleanRejected(SourceOpen{{"a"}, false, 1, false}, SourceOpen{{"a"}, false, 1, true},
                           "follow_symlinks");
  FileList list = SampleFileList();
  list.last = false;
  ExpectBadBooleanRejected(list, SampleFileList(), "last");

  SinkOpen a = SampleSinkOpen();
  SinkOpen b = a;
  a.force = false;
  b.force = true;
  ExpectBadBooleanRejected(a, b, "force");
  a = b = SampleSinkOpen();
  a.preserve = false;
  b.preserve = true;
  ExpectBadBooleanRejected(a, b, "preserve");
  a = b = SampleSinkOpen();
  a.recursive = false;
  b.recursive = true;
  ExpectBadBooleanRejected(a, b, "recursive");
}

TEST(ControlMessageTest, StreamCountOutOfRangeIsRejected) {
  for (std::uint16_t streams : std::initializer_list<std::uint16_t>{0, 65, 0xFFFF}) {
    SinkOpen s = SampleSinkOpen();
    s.params.streams = streams;
    EXPECT_EQ(DecodeError(EncodeMessage(s)), ErrorCode::kProtocol) << streams;
    SourceStart t = SampleSourceStart();
    t.params.streams = streams;
    EXPECT_EQ(DecodeError(EncodeMessage(t)), ErrorCode::kProtocol) << streams;
  }
}

TEST(ControlMessageTest, BlockSizeOutOfRangeIsRejected) {
  for (std::uint32_t block : {0u, 1u, 4095u, (64u << 20) + 1, 0xFFFFFFFFu}) {
    SinkOpen s = SampleSinkOpen();
    s.params.block_size = block;
    EXPECT_EQ(DecodeError(EncodeMessage(s)), ErrorCode::kProtocol) << block;
    SourceStart t = SampleSourceStart();
    t.params.block_size = block;
    EXPECT_EQ(DecodeError(EncodeMessage(t)), ErrorCode::kProtocol) << block;
  }
}

TEST(ControlMessageTest, ErrorCodeOutOfRangeIsRejected) {
  EXPECT_EQ(DecodeError(EncodeMessage(ErrorMessage{ErrorCode::kOk, "ok?"})), ErrorCode::kProtocol);
  for (std::uint16_t code :
       {static_cast<std::uint16_t>(kMaxErrorCode + 1), std::uint16_t{255}, std::uint16_t{0xFFFF}}) {
    EXPECT_EQ(DecodeError(EncodeMessage(ErrorMessage{static_cast<ErrorCode>(code), "x"})),
              ErrorCode::kProtocol)
        << code;
  }
}

TEST(ControlMessageTest, UnsafeEntryPathsAreRejected) {
  const std::string unsafe[] = {
      "../x", "/abs", "a//b", "a/./b", "",       std::string("x\0y", 3), "a/..", "..",
      ".",    "./a",  "a/",   "/",     "a/../b", std::string(1, '\0')};
  for (const auto& path : unsafe) {
    EXPECT_EQ(DecodeError(OneEntryList(RegularEntry(0, path))), ErrorCode::kProtocol)
        << "path \"" << path << "\" (" << path.size() << " bytes)";
  }
  EXPECT_NO_THROW(DecodeMessage(OneEntryList(RegularEntry(0, "a/b/c"))));
}

TEST(ControlMessageTest, UnsafePathInLaterEntryIsRejected) {
  FileList m = SampleFileList();
  m.entries.push_back(RegularEntry(4, "top/../../etc/passwd"));
  EXPECT_EQ(DecodeError(EncodeMessage(m)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, EntryPathTooLongIsRejected) {
  EXPECT_EQ(DecodeError(OneEntryList(RegularEntry(0, std::string(kMaxPathLength + 1, 'a')))),
            ErrorCode::kProtocol);
  FileEntry link = RegularEntry(0, "l");
  link.kind = FileKind::kSymlink;
  link.size = 0;
  link.link_target = std::string(kMaxPathLength + 1, 't');
  EXPECT_EQ(DecodeError(OneEntryList(link)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, UnknownFileKindIsRejected) {
  for (std::uint8_t kind : std::initializer_list<std::uint8_t>{0, 5, 0xFF}) {
    FileEntry e = RegularEntry(0, "f");
    e.kind = static_cast<FileKind>(kind);
    EXPECT_EQ(DecodeError(OneEntryList(e)), ErrorCode::kProtocol) << int{kind};
  }
}

TEST(ControlMessageTest, ModeOutOfRangeIsRejected) {
  FileEntry e = RegularEntry(0, "f");
  e.mode = 07777;
  EXPECT_NO_THROW(DecodeMessage(OneEntryList(e)));
  for (std::uint32_t mode : {010000u, 0100644u, 0xFFFFFFFFu}) {
    e.mode = mode;
    EXPECT_EQ(DecodeError(OneEntryList(e)), ErrorCode::kProtocol) << mode;
  }
}

TEST(ControlMessageTest, NanosecondsOutOfRangeAreRejected) {
  FileEntry e = RegularEntry(0, "f");
  e.mtime_nsec = 999999999u;
  EXPECT_NO_THROW(DecodeMessage(OneEntryList(e)));
  for (std::uint32_t nsec : {1000000000u, 1000000001u, 0xFFFFFFFFu}) {
    e.mtime_nsec = nsec;
    EXPECT_EQ(DecodeError(OneEntryList(e)), ErrorCode::kProtocol) << nsec;
  }
}

TEST(ControlMessageTest, UnknownSizeOnlyOnStreams) {
  for (FileKind kind : {FileKind::kRegular, FileKind::kDirectory, FileKind::kSymlink}) {
    FileEntry e = RegularEntry(0, "f");
    e.kind = kind;
    e.size = kUnknownSize;
    if (kind == FileKind::kSymlink) e.link_target = "t";
    EXPECT_EQ(DecodeError(OneEntryList(e)), ErrorCode::kProtocol) << static_cast<int>(kind);
  }
  FileEntry s = RegularEntry(0, "f");
  s.kind = FileKind::kStream;
  s.size = kUnknownSize;
  EXPECT_NO_THROW(DecodeMessage(OneEntryList(s)));
}

TEST(ControlMessageTest, LinkTargetOnlyOnLinks) {
  for (FileKind kind : {FileKind::kRegular, FileKind::kDirectory, FileKind::kStream}) {
    FileEntry e = RegularEntry(0, "f");
    e.kind = kind;
    e.link_target = "somewhere";
    EXPECT_EQ(DecodeError(OneEntryList(e)), ErrorCode::kProtocol) << static_cast<int>(kind);
  }
  FileEntry link = RegularEntry(0, "f");
  link.kind = FileKind::kSymlink;
  link.link_target = "/absolute/is/fine/for/a/target";
  EXPECT_NO_THROW(DecodeMessage(OneEntryList(link)));
  link.link_target = std::string("bad\0target", 10);
  EXPECT_EQ(DecodeError(OneEntryList(link)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, AHardLinkNamesASafeRelativePathAndHasNoSize) {
  FileEntry link = RegularEntry(0, "t/again");
  link.kind = FileKind::kHardLink;
  link.size = 0;
  link.link_target = "t/data.bin";
  EXPECT_NO_THROW(DecodeMessage(OneEntryList(link)));
  for (const char* unsafe : {"/etc/shadow", "t/../../x", "", "t//x"}) {
    link.link_target = unsafe;
    EXPECT_EQ(DecodeError(OneEntryList(link)), ErrorCode::kProtocol) << unsafe;
  }
  link.link_target = "t/data.bin";
  link.size = 1;
  EXPECT_EQ(DecodeError(OneEntryList(link)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, RandomGarbageOnlyEverThrowsProtocolErrors) {
  std::mt19937 rng(20240601);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> mode(0, 3);
  const std::vector<ControlMessage> samples = AllSamples();
  std::vector<Bytes> seeds;
  for (const auto& m : samples) seeds.push_back(EncodeMessage(m));

  int decoded = 0;
  int failures = 0;
  for (int iter = 0; iter < 20000 && failures < 5; ++iter) {
    Bytes input;
    switch (mode(rng)) {
      case 0: {  // pure noise
        std::size_t n = std::uniform_int_distribution<std::size_t>(0, 96)(rng);
        for (std::size_t i = 0; i < n; ++i) input.push_back(static_cast<std::uint8_t>(byte(rng)));
        break;
      }
      case 1: {  // a valid type, then noise
        input = {0, static_cast<std::uint8_t>(std::uniform_int_distribution<int>(1, 14)(rng))};
        std::size_t n = std::uniform_int_distribution<std::size_t>(0, 160)(rng);
        for (std::size_t i = 0; i < n; ++i) {
          // Mostly small bytes, so lengths and counts are often plausible.
          int b = byte(rng);
          input.push_back(static_cast<std::uint8_t>(b < 200 ? b % 3 : b));
        }
        break;
      }
      default: {  // a valid message with a few bytes changed, cut or extended
        input = seeds[std::uniform_int_distribution<std::size_t>(0, seeds.size() - 1)(rng)];
        int flips = std::uniform_int_distribution<int>(1, 4)(rng);
        for (int i = 0; i < flips; ++i) {
          std::size_t at = std::uniform_int_distribution<std::size_t>(0, input.size() - 1)(rng);
          input[at] = static_cast<std::uint8_t>(byte(rng));
        }
        int cut = std::uniform_int_distribution<int>(0, 5)(rng);
        if (cut == 0) input.resize(input.size() / 2);
        if (cut == 1) input.push_back(static_cast<std::uint8_t>(byte(rng)));
        break;
      }
    }
    try {
      ControlMessage m = DecodeMessage(input);
      ++decoded;
      // Whatever decodes must re-encode to something that decodes again.
      ControlMessage again = DecodeMessage(EncodeMessage(m));
      EXPECT_EQ(again.index(), m.index());
    } catch (const BraidError& e) {
      if (e.code() != ErrorCode::kProtocol) {
        ++failures;
        ADD_FAILURE() << "iteration " << iter << ": code " << ErrorName(e.code()) << ": "
                      << e.what();
      }
    } catch (const std::exception& e) {
      ++failures;
      ADD_FAILURE() << "iteration " << iter << ": non-BraidError " << e.what();
    } catch (...) {
      ++failures;
      ADD_FAILURE() << "iteration " << iter << ": unknown exception";
    }
  }
  EXPECT_EQ(failures, 0);
  // The mutation half must sometimes survive, or the fuzz never got past the type.
  EXPECT_GT(decoded, 0);
}

// ---------------------------------------------------------------- IsSafeRelativePath

TEST(IsSafeRelativePathTest, AcceptsPlainRelativeNames) {
  for (std::string_view p : {"a", "a/b", "a/b/c", "top/sub/file.txt", ".hidden", "..a", "a..",
                             "...", "a/.b", "a/..b", "a b/c d", "-", "a\\..\\b"}) {
    EXPECT_TRUE(IsSafeRelativePath(p)) << p;
  }
  EXPECT_TRUE(IsSafeRelativePath(std::string(kMaxPathLength, 'x')));
}

TEST(IsSafeRelativePathTest, RejectsEscapesAndOddComponents) {
  for (std::string_view p :
       {"", "/", "//", "/a", "/a/b", "a/", "a//b", ".", "..", "./a", "a/.", "a/./b", "../a", "a/..",
        "a/../b", "../../etc/passwd", "a/b/", "a///"}) {
    EXPECT_FALSE(IsSafeRelativePath(p)) << "\"" << p << "\"";
  }
}

TEST(IsSafeRelativePathTest, RejectsEmbeddedNul) {
  EXPECT_FALSE(IsSafeRelativePath(std::string_view("x\0y", 3)));
  EXPECT_FALSE(IsSafeRelativePath(std::string_view("\0", 1)));
  EXPECT_FALSE(IsSafeRelativePath(std::string_view("abc\0", 4)));
  EXPECT_FALSE(IsSafeRelativePath(std::string_view("a/\0/b", 5)));
}

// ---------------------------------------------------------------- resume

std::vector<ResumeEntry> SampleResume() {
  return {
      ResumeEntry::Complete(0),
      ResumeEntry::Partial(3, {{0, 4096}, {8192, 1u << 20}, {(1ull << 40), (1ull << 40) + 1}}),
      ResumeEntry::Partial(4, {{5, 6}}),
      ResumeEntry::Partial(0xFFFFFFFFu, {{0, std::numeric_limits<std::uint64_t>::max()}}),
  };
}

SinkReady SampleSinkReady() {
  SinkReady m;
  m.addresses = {"10.0.0.1", "::1"};
  m.port = 40000;
  m.resume = SampleResume();
  m.kept_bytes = 0x0123456789ABCDEFull;
  m.failed_blocks = 0xFEDCBA98u;
  return m;
}

void ExpectResumeEq(const std::vector<ResumeEntry>& a, const std::vector<ResumeEntry>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].complete, b[i].complete);
    EXPECT_TRUE(std::ranges::equal(a[i].kept(), b[i].kept()));
    EXPECT_EQ(a[i].end(), b[i].end());
  }
}

/// A SinkReady and a SourceStart carrying `resume`, encoded.
std::vector<Bytes> WithResume(const std::vector<ResumeEntry>& resume) {
  SinkReady ready = SampleSinkReady();
  ready.resume = resume;
  SourceStart start = SampleSourceStart();
  start.resume = resume;
  return {EncodeMessage(ready), EncodeMessage(start)};
}

/// Decodes and returns the reason of the protocol error; empty when none.
std::string DecodeFailure(const Bytes& bytes) {
  try {
    DecodeMessage(bytes);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kProtocol);
    return e.what();
  }
  return "";
}

TEST(ControlMessageTest, SinkOpenResumeFieldsRoundTrip) {
  for (ResumeMode mode : {ResumeMode::kAuto, ResumeMode::kRequire, ResumeMode::kOff}) {
    for (bool verify : {false, true}) {
      for (bool keep : {false, true}) {
        SinkOpen in = SampleSinkOpen();
        in.resume = mode;
        in.verify_kept = verify;
        in.keep_partial = keep;
        SinkOpen out = RoundTrip(in);
        EXPECT_EQ(out.resume, mode);
        EXPECT_EQ(out.verify_kept, verify);
        EXPECT_EQ(out.keep_partial, keep);
        EXPECT_EQ(out.target, in.target);
      }
    }
  }
  SinkOpen defaults = RoundTrip(SinkOpen{});
  EXPECT_EQ(defaults.resume, ResumeMode::kAuto);
  EXPECT_TRUE(defaults.verify_kept);
  EXPECT_TRUE(defaults.keep_partial);
}

TEST(ControlMessageTest, SinkOpenUnknownResumeModeIsRejected) {
  SinkOpen a = SampleSinkOpen();
  SinkOpen b = a;
  a.resume = ResumeMode::kAuto;
  b.resume = ResumeMode::kOff;
  Bytes bytes = EncodeMessage(a);
  std::size_t at = OnlyDifference(bytes, EncodeMessage(b));
  EXPECT_EQ(bytes[at], 0);
  for (std::uint8_t mode :
       {std::uint8_t{3}, std::uint8_t{4}, std::uint8_t{0x80}, std::uint8_t{0xFF}}) {
    Bytes bad = bytes;
    bad[at] = mode;
    EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol) << int{mode};
  }
  bytes[at] = 2;
  ControlMessage m = DecodeMessage(bytes);
  ASSERT_TRUE(std::holds_alternative<SinkOpen>(m));
  EXPECT_EQ(std::get<SinkOpen>(m).resume, ResumeMode::kOff);
}

TEST(ControlMessageTest, SinkOpenResumeBooleansAreChecked) {
  SinkOpen a = SampleSinkOpen();
  SinkOpen b = a;
  a.verify_kept = false;
  b.verify_kept = true;
  ExpectBadBooleanRejected(a, b, "verify_kept");
  a = b = SampleSinkOpen();
  a.keep_partial = false;
  b.keep_partial = true;
  ExpectBadBooleanRejected(a, b, "keep_partial");
}

TEST(ControlMessageTest, SinkReadyWithResumeRoundTrip) {
  SinkReady in = SampleSinkReady();
  SinkReady out = RoundTrip(in);
  EXPECT_EQ(out.addresses, in.addresses);
  EXPECT_EQ(out.port, in.port);
  ExpectResumeEq(out.resume, in.resume);
  EXPECT_EQ(out.kept_bytes, in.kept_bytes);
  EXPECT_EQ(out.failed_blocks, in.failed_blocks);
}

TEST(ControlMessageTest, SourceStartWithResumeRoundTrip) {
  SourceStart in = SampleSourceStart();
  in.resume = SampleResume();
  SourceStart out = RoundTrip(in);
  EXPECT_EQ(out.addresses, in.addresses);
  EXPECT_EQ(out.port, in.port);
  ExpectParamsEq(out.params, in.params);
  ExpectResumeEq(out.resume, in.resume);
  EXPECT_TRUE(RoundTrip(SampleSourceStart()).resume.empty());
}

TEST(ControlMessageTest, ResumeItemKindIsZeroOneOrTwo) {
  // A partial file is item kind 0; changing that byte to 3 or 0xFF is refused.
  for (const Bytes& good : WithResume({ResumeEntry::Partial(1, {{0, 10}})})) {
    Bytes ref = good;
    std::size_t at = 0;
    bool found = false;
    // The kind byte is followed by the id 1 as a big-endian u32.
    for (std::size_t i = 0; i + 4 < ref.size(); ++i) {
      if (ref[i] == 0 && ref[i + 1] == 0 && ref[i + 2] == 0 && ref[i + 3] == 0 && ref[i + 4] == 1) {
        at = i;
        found = true;
      }
    }
    ASSERT_TRUE(found);
    for (std::uint8_t bad : {std::uint8_t{3}, std::uint8_t{0xFF}}) {
      Bytes b = ref;
      b[at] = bad;
      EXPECT_NE(DecodeFailure(b), "");
    }
  }
}

TEST(ControlMessageTest, RunsOfCompleteFilesRoundTripAndStaySmall) {
  SinkReady m = SampleSinkReady();
  m.resume.clear();
  for (std::uint32_t i = 10; i < 20010; ++i) m.resume.push_back(ResumeEntry::Complete(i));
  m.resume.push_back(ResumeEntry::Partial(30000, {{0, 4096}}));
  m.resume.push_back(ResumeEntry::Complete(30001));
  Bytes b = EncodeMessage(m);
  EXPECT_LT(b.size(), EncodeMessage(SampleSinkReady()).size() + 200);  // one run, not 20000 entries
  // Decoded, the run stays one entry (a run of 2^24 files must not become 2^24 entries).
  SinkReady out = std::get<SinkReady>(DecodeMessage(b));
  ASSERT_EQ(out.resume.size(), 3u);
  EXPECT_EQ(ResumeFileCount(out.resume), m.resume.size());
  EXPECT_EQ(out.resume[0].id, 10u);
  EXPECT_TRUE(out.resume[0].complete);
  EXPECT_EQ(out.resume[0].count, 20000u);
  EXPECT_EQ(out.resume[0].end(), 20010u);
  EXPECT_EQ(out.resume[1].id, 30000u);
  EXPECT_FALSE(out.resume[1].complete);
  EXPECT_TRUE(std::ranges::equal(out.resume[1].kept(), m.resume[20000].kept()));
  EXPECT_EQ(out.resume[2].id, 30001u);
  EXPECT_EQ(out.resume[2].count, 1u);
  // Encoded again (the agent relays it), it is the same bytes.
  EXPECT_EQ(EncodeMessage(out), b);
}

BlockHash HashOf(std::uint8_t seed) {
  BlockHash h{};
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(seed + i);
  return h;
}

TEST(ControlMessageTest, ComparedFilesRoundTripWithTheirBlockHashes) {
  SinkReady m = SampleSinkReady();
  m.resume = {ResumeEntry::Complete(2, 3), ResumeEntry::Compared(7, 65536, {HashOf(1), HashOf(50)}),
              ResumeEntry::Compared(8, 1u << 20, {}),  // an empty file there
              ResumeEntry::Partial(9, {{0, 10}})};
  Bytes b = EncodeMessage(m);
  SinkReady out = std::get<SinkReady>(DecodeMessage(b));
  ASSERT_EQ(out.resume.size(), 4u);
  EXPECT_FALSE(out.resume[0].compared);
  EXPECT_TRUE(out.resume[1].compared);
  EXPECT_FALSE(out.resume[1].complete);
  EXPECT_EQ(out.resume[1].id, 7u);
  EXPECT_TRUE(std::ranges::equal(out.resume[1].block_hashes(), m.resume[1].block_hashes()));
  EXPECT_TRUE(out.resume[2].compared);
  EXPECT_TRUE(out.resume[2].block_hashes().empty());
  EXPECT_FALSE(out.resume[3].compared);
  EXPECT_EQ(ResumeFileCount(out.resume), 6u);
  EXPECT_EQ(EncodeMessage(out), b);  // relayed by the agent unchanged
  // Out of order against a run, as any other item.
  m.resume = {ResumeEntry::Complete(0, 10), ResumeEntry::Compared(5, 4096, {HashOf(3)})};
  EXPECT_EQ(DecodeError(EncodeMessage(m)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, BlockHashesPastTheLimitAreRefusedBeforeTheyAreRead) {
  SinkReady m = SampleSinkReady();
  m.resume = {ResumeEntry::Compared(0, 65536, std::vector<BlockHash>(kMaxBlockHashes / 2)),
              ResumeEntry::Compared(1, 65536, std::vector<BlockHash>(kMaxBlockHashes / 2))};
  EXPECT_EQ(std::get<SinkReady>(DecodeMessage(EncodeMessage(m))).resume.size(), 2u);
  m.resume[1] = ResumeEntry::Compared(1, 65536, std::vector<BlockHash>(kMaxBlockHashes / 2 + 1));
  EXPECT_EQ(DecodeError(EncodeMessage(m)), ErrorCode::kProtocol);
  // A count that claims more hashes than the message holds: refused.
  SinkReady small = SampleSinkReady();
  small.resume = {ResumeEntry::Compared(0x01020304, 65536, {HashOf(9)})};
  Bytes b = EncodeMessage(small);
  Bytes item = {0x02, 0x01, 0x02, 0x03, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01};
  auto at = std::search(b.begin(), b.end(), item.begin(), item.end());
  ASSERT_NE(at, b.end());
  at[10] = 0x07;  // k = 458,753, within the limit, of which one is there
  EXPECT_EQ(DecodeError(b), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, ComparedPiecesOutsideFourKibibytesToSixtyFourMebibytesAreRefused) {
  SinkReady m = SampleSinkReady();
  for (std::uint32_t piece : {kMinComparePiece, 65536u, 1000000u, kMaxComparePiece}) {
    m.resume = {ResumeEntry::Compared(3, piece, {HashOf(1)})};
    EXPECT_EQ(std::get<SinkReady>(DecodeMessage(EncodeMessage(m))).resume.at(0).piece, piece);
  }
  for (std::uint32_t piece : {0u, kMinComparePiece - 1, kMaxComparePiece + 1, 0xFFFFFFFFu}) {
    m.resume = {ResumeEntry::Compared(3, piece, {HashOf(1)})};
    EXPECT_EQ(DecodeError(EncodeMessage(m)), ErrorCode::kProtocol) << piece;
  }
}

TEST(ControlMessageTest, SinkOpenCarriesTheRuleForExistingFiles) {
  SinkOpen m = SampleSinkOpen();
  for (ExistingRule r : {ExistingRule::kQuickCheck, ExistingRule::kDelta,
                         ExistingRule::kOmitExisting, ExistingRule::kSizeOnly}) {
    m.existing = r;
    EXPECT_EQ(RoundTrip(m).existing, r);
  }
  Bytes b = EncodeMessage(m);
  // The rule comes before remote_paths, command and forward (empty: its length, 4 bytes).
  const std::size_t at = b.size() - 7;
  ASSERT_EQ(b[at], static_cast<std::uint8_t>(ExistingRule::kSizeOnly));
  b[at] = 4;  // no such rule
  EXPECT_EQ(DecodeError(b), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, RunOfTwoToThe24CompleteFilesStaysOneEntry) {
  SinkReady m = SampleSinkReady();
  m.resume = {ResumeEntry::Complete(0, 1u << 24)};
  SinkReady out = std::get<SinkReady>(DecodeMessage(EncodeMessage(m)));
  ASSERT_EQ(out.resume.size(), 1u);
  EXPECT_EQ(out.resume[0].count, 1u << 24);
  // One more file than the protocol allows in a resume list: refused.
  m.resume = {ResumeEntry::Complete(0, (1u << 24) + 1)};
  EXPECT_EQ(DecodeError(EncodeMessage(m)), ErrorCode::kProtocol);
  // A partial file inside a run: out of order.
  m.resume = {ResumeEntry::Complete(0, 10), ResumeEntry::Partial(5, {{0, 1}})};
  EXPECT_EQ(DecodeError(EncodeMessage(m)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, AppendCompleteExtendsTheLastRun) {
  std::vector<ResumeEntry> r;
  AppendComplete(r, 3);
  AppendComplete(r, 4);
  AppendComplete(r, 6);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].count, 2u);
  EXPECT_EQ(r[1].id, 6u);
  EXPECT_EQ(ResumeFileCount(r), 3u);
}

TEST(ControlMessageTest, ResumeIdsMustStrictlyIncrease) {
  const std::vector<std::vector<ResumeEntry>> bad = {
      {ResumeEntry::Partial(3, {{0, 1}}), ResumeEntry::Partial(3, {{0, 1}})},  // repeated
      {ResumeEntry::Complete(3), ResumeEntry::Complete(2)},                    // decreasing
      {ResumeEntry::Complete(0), ResumeEntry::Complete(5),
       ResumeEntry::Complete(4)},                                      // a later pair
      {ResumeEntry::Complete(0xFFFFFFFFu), ResumeEntry::Complete(0)},  // wrapped
  };
  for (const auto& resume : bad) {
    for (const Bytes& b : WithResume(resume)) {
      std::string why = DecodeFailure(b);
      EXPECT_NE(why.find("resumed files out of order"), std::string::npos) << why;
    }
  }
  for (const Bytes& b : WithResume({ResumeEntry::Complete(0), ResumeEntry::Complete(1),
                                    ResumeEntry::Complete(0xFFFFFFFFu)})) {
    EXPECT_NO_THROW(DecodeMessage(b));
  }
}

TEST(ControlMessageTest, KeptRangesMustBeNonEmptySortedAndDisjoint) {
  struct Bad {
    std::vector<ByteRange> kept;
    const char* why;
  };
  const std::vector<Bad> bad = {
      {{{5, 5}}, "empty kept range"},
      {{{6, 5}}, "empty kept range"},
      {{{0, 10}, {20, 20}}, "empty kept range"},
      {{{20, 30}, {0, 10}}, "kept ranges out of order"},
      {{{0, 10}, {5, 15}}, "kept ranges out of order"},    // overlapping
      {{{0, 10}, {0, 10}}, "kept ranges out of order"},    // repeated
      {{{0, 10}, {10, 20}}, "kept ranges out of order"},   // touching: should have been one
      {{{0, 100}, {10, 20}}, "kept ranges out of order"},  // contained
      {{{0, 1}, {2, 3}, {2, 4}}, "kept ranges out of order"},
  };
  for (const Bad& c : bad) {
    for (const Bytes& b :
         WithResume({ResumeEntry::Partial(1, {{0, 1}}), ResumeEntry::Partial(2, c.kept)})) {
      std::string why = DecodeFailure(b);
      EXPECT_NE(why.find(c.why), std::string::npos) << why;
    }
  }
  for (const Bytes& b : WithResume({ResumeEntry::Partial(2, {{0, 10}, {11, 20}, {100, 200}})})) {
    EXPECT_NO_THROW(DecodeMessage(b));
  }
}

TEST(ControlMessageTest, TooManyResumeEntriesAreRejectedWithoutAllocating) {
  SinkReady none = SampleSinkReady();
  none.resume.clear();
  for (bool ready : {true, false}) {
    SCOPED_TRACE(ready ? "SinkReady" : "SourceStart");
    // Without entries the list is a zero count: before the (empty) listen
    // address in a SourceStart, before the two totals in a SinkReady.
    Bytes prefix = ready ? EncodeMessage(none) : EncodeMessage(SampleSourceStart());
    std::size_t count_at = prefix.size() - (ready ? 16 : 8);
    Bytes good = WithResume(SampleResume())[ready ? 0 : 1];
    ASSERT_EQ(good[count_at + 3], SampleResume().size());
    for (std::uint32_t n : {static_cast<std::uint32_t>(kMaxResumeFiles + 1), 0xFFFFFFFFu}) {
      WireWriter w;
      w.Bytes(std::span(prefix).first(count_at));
      w.U32(n);
      std::string why = DecodeFailure(w.data());
      EXPECT_NE(why.find("too many resumed files"), std::string::npos) << why;
    }
  }
}

TEST(ControlMessageTest, TooManyKeptRangesAreRejected) {
  SinkReady none = SampleSinkReady();
  none.resume.clear();
  Bytes prefix = EncodeMessage(none);
  std::size_t count_at = prefix.size() - 16;
  auto start = [&](std::uint32_t files) {
    WireWriter w;
    w.Bytes(std::span(prefix).first(count_at));
    w.U32(files);
    return w;
  };
  // One file declaring more ranges than allowed: rejected before reading any.
  {
    WireWriter w = start(1);
    w.U32(1);
    w.U8(0);
    w.U32(static_cast<std::uint32_t>(kMaxKeptRanges + 1));
    std::string why = DecodeFailure(w.data());
    EXPECT_NE(why.find("too many kept ranges"), std::string::npos) << why;
  }
  // Exactly the limit passes the count check (then runs out of bytes).
  {
    WireWriter w = start(1);
    w.U32(1);
    w.U8(0);
    w.U32(static_cast<std::uint32_t>(kMaxKeptRanges));
    std::string why = DecodeFailure(w.data());
    EXPECT_NE(why.find("truncated"), std::string::npos) << why;
  }
  // The limit is over all files together.
  {
    const auto half = static_cast<std::uint32_t>(kMaxKeptRanges / 2);
    WireWriter w = start(2);
    w.U32(1);
    w.U8(0);
    w.U32(half);
    for (std::uint64_t i = 0; i < half; ++i) {
      w.U64(2 * i);
      w.U64(2 * i + 1);
    }
    w.U32(2);
    w.U8(0);
    w.U32(half + 1);
    std::string why = DecodeFailure(w.data());
    EXPECT_NE(why.find("too many kept ranges"), std::string::npos) << why;
  }
}

TEST(ControlMessageTest, EveryTruncationOfAResumeListIsAProtocolError) {
  std::vector<ControlMessage> messages;
  messages.push_back(SampleSinkReady());
  SourceStart start = SampleSourceStart();
  start.resume = SampleResume();
  messages.push_back(start);
  for (const auto& m : messages) {
    SCOPED_TRACE(MessageName(m));
    Bytes full = EncodeMessage(m);
    ASSERT_NO_THROW(DecodeMessage(full));
    for (std::size_t n = 0; n < full.size(); ++n) {
      // An exact-size copy, so reading one byte too far is caught by sanitizers.
      Bytes prefix(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_EQ(DecodeError(prefix), ErrorCode::kProtocol) << "prefix of " << n;
    }
  }
}

TEST(ControlMessageTest, MutatedResumeListsDecodeOnlyToValidLists) {
  // Whatever survives decoding can be used as it is: ids increasing, ranges
  // non-empty, sorted and apart.
  std::mt19937 rng(7331);
  const Bytes seed = EncodeMessage(SampleSinkReady());
  SinkReady none = SampleSinkReady();
  none.resume.clear();
  const std::size_t list_at = EncodeMessage(none).size() - 16;
  int decoded = 0;
  for (int iter = 0; iter < 5000; ++iter) {
    Bytes b = seed;
    int flips = std::uniform_int_distribution<int>(1, 3)(rng);
    for (int i = 0; i < flips; ++i) {
      std::size_t at = std::uniform_int_distribution<std::size_t>(list_at, b.size() - 1)(rng);
      b[at] = static_cast<std::uint8_t>(rng() % 4 == 0 ? rng() : b[at] ^ (1u << (rng() % 8)));
    }
    try {
      ControlMessage m = DecodeMessage(b);
      ASSERT_TRUE(std::holds_alternative<SinkReady>(m));
      const auto& resume = std::get<SinkReady>(m).resume;
      ++decoded;
      for (std::size_t i = 0; i < resume.size(); ++i) {
        if (i > 0) {
          ASSERT_GT(resume[i].id, resume[i - 1].id) << iter;
        }
        for (std::size_t k = 0; k < resume[i].kept().size(); ++k) {
          ASSERT_LT(resume[i].kept()[k].first, resume[i].kept()[k].second) << iter;
          if (k > 0) {
            ASSERT_GT(resume[i].kept()[k].first, resume[i].kept()[k - 1].second) << iter;
          }
        }
      }
    } catch (const BraidError& e) {
      ASSERT_EQ(e.code(), ErrorCode::kProtocol) << iter;
    }
  }
  EXPECT_GT(decoded, 100);
}

TEST(ControlMessageTest, KeptRoundTrip) {
  for (const Kept& in : {Kept{0, 0}, Kept{123, 2}, Kept{~0ull, 0xFFFFFFFFu}}) {
    Kept out = RoundTrip(in);
    EXPECT_EQ(out.bytes, in.bytes);
    EXPECT_EQ(out.partial_files, in.partial_files);
  }
  EXPECT_STREQ(MessageName(Kept{}), "Kept");
  Bytes b = EncodeMessage(Kept{1, 2});
  EXPECT_EQ(b.size(), 2u + 8u + 4u);
  EXPECT_EQ((b[0] << 8) | b[1], static_cast<int>(MessageType::kKept));
}

TEST(ControlMessageTest, CommandsRoundTripAndASourceRunsOne) {
  SourceOpen source;
  source.paths = {"tar cf - dir"};
  source.command = true;
  EXPECT_TRUE(RoundTrip(source).command);
  source.paths = {"one", "two"};
  EXPECT_EQ(DecodeError(EncodeMessage(source)), ErrorCode::kProtocol);
  source.command = false;
  EXPECT_FALSE(RoundTrip(source).command);
  SinkOpen sink = SampleSinkOpen();
  for (bool on : {false, true}) {
    sink.command = on;
    EXPECT_EQ(RoundTrip(sink).command, on);
  }
}

TEST(ControlMessageTest, SparseFlagRoundTripsOnRegularFilesOnly) {
  FileEntry plain = RegularEntry(0, "a");
  FileEntry sparse = plain;
  sparse.sparse = true;
  FileList in;
  in.entries = {sparse};
  FileList out = RoundTrip(in);
  ASSERT_EQ(out.entries.size(), 1u);
  EXPECT_TRUE(out.entries[0].sparse);
  ExpectSameListedFields(out.entries[0], sparse);

  // The flags byte is where the two encodings differ; any other bit is refused.
  Bytes a = OneEntryList(plain);
  Bytes b = OneEntryList(sparse);
  ASSERT_EQ(a.size(), b.size());
  std::size_t at = 0;
  while (at < a.size() && a[at] == b[at]) ++at;
  ASSERT_LT(at, a.size());
  EXPECT_EQ(b[at], 1);
  for (std::uint8_t bits : {std::uint8_t{2}, std::uint8_t{3}, std::uint8_t{0x80}}) {
    Bytes bad = b;
    bad[at] = bits;
    EXPECT_EQ(DecodeError(bad), ErrorCode::kProtocol) << int{bits};
  }

  FileEntry dir = sparse;
  dir.kind = FileKind::kDirectory;
  dir.size = 0;
  EXPECT_EQ(DecodeError(OneEntryList(dir)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, FileEntryFingerprintRoundTrip) {
  for (std::uint64_t fp : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{0x0123456789ABCDEFull},
                           ~std::uint64_t{0}}) {
    FileList in;
    in.entries.push_back(RegularEntry(0, "a"));
    in.entries.push_back(RegularEntry(1, "b"));
    in.entries[0].fingerprint = fp;
    in.entries[1].fingerprint = ~fp;
    FileList out = RoundTrip(in);
    ASSERT_EQ(out.entries.size(), 2u);
    EXPECT_EQ(out.entries[0].fingerprint, fp);
    EXPECT_EQ(out.entries[1].fingerprint, ~fp);
    ExpectSameListedFields(out.entries[0], in.entries[0]);
  }
}

TEST(ControlMessageTest, ResumeListForMoreThanAMillionCompletedFilesDecodes) {
  // A re-run of an interrupted copy of a large tree: every file already in
  // place gets a `complete` entry. File lists have no total limit (they come in
  // chunks), so neither may the resume list that answers them; a SinkReady
  // the agent cannot decode fails every re-run of such a tree.
  SinkReady m = SampleSinkReady();
  m.resume.clear();
  const auto n = static_cast<std::uint32_t>(kMaxKeptRanges + 1);
  m.resume.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) m.resume.push_back(ResumeEntry::Complete(i));
  Bytes b = EncodeMessage(m);
  ASSERT_LE(b.size(), kMaxControlMessage);
  std::string why = DecodeFailure(b);
  EXPECT_EQ(why, "") << "a SinkReady for " << n << " completed files is rejected";
}

TEST(ControlMessageTest, ReverseStartAndItsAddresses) {
  SourceStart start = SampleSourceStart();
  start.params.reverse = true;
  start.addresses.clear();
  start.port = 0;
  start.listen_address = "10.1.2.3";
  SourceStart out = std::get<SourceStart>(DecodeMessage(EncodeMessage(start)));
  EXPECT_TRUE(out.params.reverse);
  EXPECT_EQ(out.listen_address, "10.1.2.3");
  // Reverse with an address, or not reverse without one: refused.
  SourceStart bad = start;
  bad.port = 7;
  bad.addresses = {"10.0.0.1"};
  EXPECT_EQ(DecodeError(EncodeMessage(bad)), ErrorCode::kProtocol);
  bad = SampleSourceStart();
  bad.addresses.clear();
  EXPECT_EQ(DecodeError(EncodeMessage(bad)), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(SourceReady{{}, 5})), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(SinkConnect{{"a"}, 0})), ErrorCode::kProtocol);
  // A sink that will connect (-z) answers with neither address nor port.
  SinkReady ready = SampleSinkReady();
  ready.addresses.clear();
  ready.port = 0;
  EXPECT_NO_THROW(DecodeMessage(EncodeMessage(ready)));
  ready.port = 9;
  EXPECT_EQ(DecodeError(EncodeMessage(ready)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, PortRangeAndFamilyAreChecked) {
  SourceStart start = SampleSourceStart();
  start.params.port_min = 40000;
  start.params.port_max = 40010;
  start.params.family = 6;
  SourceStart out = std::get<SourceStart>(DecodeMessage(EncodeMessage(start)));
  EXPECT_EQ(out.params.port_min, 40000);
  EXPECT_EQ(out.params.port_max, 40010);
  EXPECT_EQ(out.params.family, 6);
  for (auto [lo, hi] : {std::pair{5, 4}, std::pair{0, 4}, std::pair{4, 0}}) {
    SourceStart bad = SampleSourceStart();
    bad.params.port_min = static_cast<std::uint16_t>(lo);
    bad.params.port_max = static_cast<std::uint16_t>(hi);
    EXPECT_EQ(DecodeError(EncodeMessage(bad)), ErrorCode::kProtocol) << lo << ":" << hi;
  }
  SourceStart bad = SampleSourceStart();
  bad.params.family = 5;
  EXPECT_EQ(DecodeError(EncodeMessage(bad)), ErrorCode::kProtocol);
}

// ---------------------------------------------------------------- the feed of a chain

const char* const kToken = "0123456789abcdef0123456789abcdef";

TEST(ControlMessageTest, FeedMessagesRoundTrip) {
  EXPECT_EQ(RoundTrip(FeedHello{kToken}).token, kToken);
  FeedPlan plan = RoundTrip(FeedPlan{0, "/srv/d"});
  EXPECT_EQ(plan.mode, 0);
  EXPECT_EQ(plan.base, "/srv/d");
  FeedWait wait = RoundTrip(FeedWait{3, 99});
  EXPECT_EQ(wait.file_id, 3u);
  EXPECT_EQ(wait.have, 99u);
  FeedHave have = RoundTrip(FeedHave{4, 5, true, true, {}});
  EXPECT_EQ(have.file_id, 4u);
  EXPECT_EQ(have.prefix, 5u);
  EXPECT_TRUE(have.committed);
  EXPECT_EQ(have.digest.size, 0);
}

TEST(ControlMessageTest, FollowAndForwardTokensRoundTrip) {
  SourceOpen follow;
  follow.follow = kToken;
  EXPECT_EQ(RoundTrip(follow).follow, kToken);
  SinkOpen forward = SampleSinkOpen();
  forward.forward = kToken;
  EXPECT_EQ(RoundTrip(forward).forward, kToken);
  EXPECT_EQ(RoundTrip(SampleSinkOpen()).forward, "");
}

TEST(ControlMessageTest, FeedTokensMustBeHexOfTheirLength) {
  EXPECT_TRUE(IsFeedToken(kToken));
  EXPECT_FALSE(IsFeedToken(std::string(kToken).substr(1)));
  EXPECT_FALSE(IsFeedToken("0123456789ABCDEF0123456789abcdef"));
  EXPECT_FALSE(IsFeedToken("../../../../tmp/x/0123456789abcdef"));
  EXPECT_EQ(DecodeError(EncodeMessage(FeedHello{"../x"})), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(FeedHello{""})), ErrorCode::kProtocol);
  SinkOpen open = SampleSinkOpen();
  open.forward = "0123456789abcdef0123456789abcdeg";
  EXPECT_EQ(DecodeError(EncodeMessage(open)), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, SourceOpenIsPathsOrAFeedNeverBoth) {
  SourceOpen both;
  both.paths = {"a"};
  both.follow = kToken;
  EXPECT_EQ(DecodeError(EncodeMessage(both)), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(SourceOpen{})), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, ProbesRoundTripAndAreBounded) {
  ProbeMeasure measure;
  measure.targets.push_back({{"10.0.0.2"}, 1});
  measure.targets.push_back({{"10.0.0.3", "10.0.1.3"}, 2});
  ProbeMeasure out = RoundTrip(measure);
  ASSERT_EQ(out.targets.size(), 2u);
  EXPECT_EQ(out.targets[1].addresses[1], "10.0.1.3");
  EXPECT_EQ(out.targets[1].port, 2);
  EXPECT_EQ(RoundTrip(ProbeResult{{7, 0, 9}}).rtt_us, (std::vector<std::uint32_t>{7, 0, 9}));
  EXPECT_EQ(RoundTrip(ProbeReady{{"::1"}, 5}).port, 5);
  ProbeMeasure many;
  many.targets.resize(kMaxProbeTargets + 1, ProbeTarget{{"10.0.0.1"}, 1});
  EXPECT_EQ(DecodeError(EncodeMessage(many)), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(ProbeReady{{}, 5})), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(ProbeOpen{"", 5})), ErrorCode::kProtocol);
  EXPECT_EQ(RoundTrip(ProbeOpen{"", 4, 50000, 50001}).port_max, 50001);
  EXPECT_EQ(DecodeError(EncodeMessage(ProbeOpen{"", 4, 50001, 50000})), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(ProbeOpen{"", 4, 0, 50000})), ErrorCode::kProtocol);
}

TEST(ControlMessageTest, FeedPlanAndDigestAreChecked) {
  EXPECT_EQ(DecodeError(EncodeMessage(FeedPlan{2, "/d"})), ErrorCode::kProtocol);
  EXPECT_EQ(DecodeError(EncodeMessage(FeedPlan{0, ""})), ErrorCode::kProtocol);
  FeedHave odd{1, 0, false, true, MakeDigestValue(std::vector<std::uint8_t>(7, 1))};
  EXPECT_EQ(DecodeError(EncodeMessage(odd)), ErrorCode::kProtocol);
}

}  // namespace
}  // namespace braid
