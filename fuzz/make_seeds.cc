// Writes the binary seed corpora under DIR (fuzz/corpus): valid encodings made
// by braid's own encoders, so the fuzzers start from messages that get deep
// into each decoder. Run `make_seeds fuzz/corpus` after a format change and
// commit the result; the text corpora (configs, operands) are written by hand.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "braid/wire.h"
#include "proto/control_message.h"
#include "resume/resume_journal.h"
#include "security/crypto/stream_handshake.h"
#include "transport/block_codec.h"
#include "transport/data_frame.h"

using namespace braid;
namespace fs = std::filesystem;

namespace {

fs::path g_root;

void Write(const std::string& target, const std::string& name,
           const std::vector<std::uint8_t>& bytes) {
  const fs::path dir = g_root / target;
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

std::vector<std::uint8_t> U32(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v >> 24), static_cast<std::uint8_t>(v >> 16),
          static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v)};
}

std::vector<std::uint8_t> Cat(std::vector<std::uint8_t> a, const std::vector<std::uint8_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TransferParams Params() {
  TransferParams p;
  p.streams = 8;
  p.block_size = 1u << 20;
  p.hash = HashAlgorithm::kSha256;
  p.secret.fill(0x5a);
  p.session.fill(0x17);
  p.rate = 50'000'000;
  p.tos = 0x20;
  p.congestion_control = "cubic";
  p.compress_level = 1;
  return p;
}

std::vector<ResumeEntry> Resume() {
  return {ResumeEntry::Partial(3, {{0, 1u << 20}, {4u << 20, 6u << 20}}), ResumeEntry::Complete(7),
          ResumeEntry::Complete(8), ResumeEntry::Complete(9),
          ResumeEntry::Compared(12, 65536, std::vector<BlockHash>(3))};
}

FileEntry Entry(std::uint32_t id, FileKind kind, const std::string& path, std::uint64_t size) {
  FileEntry e;
  e.id = id;
  e.kind = kind;
  e.path = path;
  e.size = size;
  e.mode = kind == FileKind::kDirectory ? 0755 : 0644;
  e.mtime_sec = 1700000000;
  e.mtime_nsec = 123456789;
  if (kind == FileKind::kSymlink) e.link_target = "../target";
  if (kind == FileKind::kHardLink) e.link_target = "run42/a.bin";
  if (kind == FileKind::kRegular && size >= kResumeMinSize) e.fingerprint = 0x1234abcd5678ef90;
  return e;
}

/// Fills the fields most messages share so even a generic one is valid.
template <typename M>
M Generic() {
  M m{};
  if constexpr (requires { m.addresses; }) m.addresses = {"127.0.0.1", "::1"};
  if constexpr (requires { m.port; }) m.port = 40000;
  if constexpr (requires { m.params; }) m.params = Params();
  if constexpr (requires { m.resume; }) {
    if constexpr (std::is_same_v<decltype(m.resume), std::vector<ResumeEntry>>) m.resume = Resume();
  }
  return m;
}

template <std::size_t... I>
std::vector<ControlMessage> OneOfEach(std::index_sequence<I...>) {
  return {ControlMessage(Generic<std::variant_alternative_t<I, ControlMessage>>())...};
}

std::vector<ControlMessage> Messages() {
  std::vector<ControlMessage> out =
      OneOfEach(std::make_index_sequence<std::variant_size_v<ControlMessage>>());
  out.push_back(Hello{kControlMagic, kProtocolVersion, "0.1.0", "dtn.example.org"});
  SourceOpen open;
  open.paths = {"run42.h5", "dir/sub"};
  open.recursive = true;
  open.device_size = 10u << 30;
  open.hard_links = true;
  open.filters = {{true, "keep.tmp"}, {false, "*.tmp"}, {false, "/run42/cache/"}};
  out.push_back(open);
  FileList list;
  list.entries = {Entry(0, FileKind::kDirectory, "run42", 0),
                  Entry(1, FileKind::kRegular, "run42/a.bin", 8u << 20),
                  Entry(2, FileKind::kSymlink, "run42/link", 0),
                  Entry(3, FileKind::kStream, "-", kUnknownSize),
                  Entry(4, FileKind::kHardLink, "run42/again.bin", 0)};
  list.last = true;
  out.push_back(list);
  SinkOpen sink;
  sink.target = "/data/run42";
  sink.recursive = true;
  sink.listen_address = "10.0.0.2";
  sink.params = Params();
  sink.resume = ResumeMode::kRequire;
  out.push_back(sink);
  Progress progress;
  progress.bytes = 1u << 30;
  progress.streams = 2;
  progress.stream_samples = {{0, 1000, 2000, 1500, 10, 1, 100000, 900},
                             {1, 2000, 0, 0, 0, 0, 0, 0}};
  progress.active_streams = 2;
  progress.controller_note = "up to 2 streams: rate still rising";
  out.push_back(progress);
  FileDone done;
  done.id = 1;
  done.size = 8u << 20;
  done.hash = HashAlgorithm::kSha256;
  done.source_digest.size = 32;
  done.source_digest.bytes.fill(0xaa);
  done.sink_digest = done.source_digest;
  done.final_path = "run42/a.bin";
  out.push_back(done);
  out.push_back(ErrorMessage{ErrorCode::kProtocol, "protocol error: trailing bytes"});
  return out;
}

void ControlSeeds() {
  std::vector<std::uint8_t> stream = {0};  // control_channel: piece size 0, then frames
  int n = 0;
  for (const ControlMessage& m : Messages()) {
    std::vector<std::uint8_t> bytes = EncodeMessage(m);
    try {
      DecodeMessage(bytes);
    } catch (const BraidError& e) {
      std::fprintf(stderr, "make_seeds: skipping %s: %s\n", MessageName(m), e.what());
      continue;
    }
    const std::string name = std::to_string(n++) + "-" + MessageName(m);
    Write("control_message", name, bytes);
    Write("control_channel", name,
          Cat(Cat({3}, U32(static_cast<std::uint32_t>(bytes.size()))), bytes));
    stream = Cat(Cat(stream, U32(static_cast<std::uint32_t>(bytes.size()))), bytes);
  }
  Write("control_channel", "all-messages", stream);
}

void FrameSeeds() {
  const std::vector<std::uint8_t> max = U32(1u << 20);
  auto header = [](const FrameHeader& h) {
    FrameHeaderBytes b = EncodeFrameHeader(h);
    return std::vector<std::uint8_t>(b.begin(), b.end());
  };
  FrameHeader data{FrameType::kData, 0, 1, 4096, 8192, 4096, 0x1122334455667788};
  FrameHeader compressed{FrameType::kData, kFlagCompressed, 2, 100, 0, 4096, 42};
  FrameHeader end{FrameType::kFileEnd, kFlagHasDigest, 1, 16, 8u << 20, 0, 7};
  FrameHeader pass{FrameType::kPassEnd, 0, 8, 0, 0, 0, 0};
  const std::vector<ResendRange> ranges = {{1, 0, 1u << 20}, {2, 4096, 0}, {3, 1u << 30, 65536}};
  const std::vector<std::uint8_t> list = EncodeResendList(ranges);
  FrameHeader resend{FrameType::kResend, 0, 0, static_cast<std::uint32_t>(list.size()), 2, 0, 9};
  Write("data_frame", "data", Cat(max, header(data)));
  Write("data_frame", "compressed", Cat(max, header(compressed)));
  Write("data_frame", "file-end", Cat(max, header(end)));
  Write("data_frame", "pass-end", Cat(max, header(pass)));
  Write("data_frame", "resend", Cat(Cat(max, header(resend)), list));
}

/// block_codec: u32 out size, u8 level, then a payload; `raw` compressed.
std::vector<std::uint8_t> Compressed(std::uint32_t out_size, const std::vector<std::uint8_t>& raw) {
  BlockCompressor compressor(6, raw.size());
  const EncodedBlock block = compressor.Encode(raw);
  return Cat(Cat(U32(out_size), {5}), {block.payload.begin(), block.payload.end()});
}

void CodecSeeds() {
  std::vector<std::uint8_t> text;
  for (int i = 0; text.size() < 65536; ++i) {
    const std::string line = "block " + std::to_string(i) + " of run42.h5, pass 1\n";
    text.insert(text.end(), line.begin(), line.end());
  }
  text.resize(65536);
  const std::vector<std::uint8_t> valid = Compressed(65536, text);
  Write("block_codec", "valid", valid);
  Write("block_codec", "truncated", {valid.begin(), valid.end() - 3});
  Write("block_codec", "trailing-bytes", Cat(valid, {0x00, 0x01}));
  Write("block_codec", "fewer-than-stated", Compressed(65537, text));
  // 1 MiB of zeros in about 1 KiB, sent as a 4 KiB block.
  Write("block_codec", "bomb", Compressed(4096, std::vector<std::uint8_t>(1u << 20, 0)));
  Write("block_codec", "garbage", Cat(Cat(U32(4096), {0}), {0x78, 0x9c, 0xff, 0xfe, 0x00}));
}

void HandshakeSeeds() {
  // Raw messages as they appear on the wire, and a few tamper scripts
  // (all zeros = the untouched exchange).
  Secret secret{};
  SessionId session{};
  Nonce nonce{};
  HandshakeConnector connector(secret, session, 3, nonce);
  Write("stream_handshake", "hello", connector.Hello());
  Write("stream_handshake", "untouched", std::vector<std::uint8_t>(200, 0));
  std::vector<std::uint8_t> flip(200, 0);
  flip[2] = 0x05;
  flip[60] = 0x01;
  Write("stream_handshake", "flip-index", flip);
}

void JournalSeeds() {
  JournalHeader header;
  header.source = {64u << 20, 1700000000, 5, 0xfeedfacecafebeef};
  header.block_size = 1u << 20;
  const std::vector<JournalRecord> records = {
      {0, 1u << 20, 0x1111}, {1u << 20, 1u << 20, 0x2222}, {63u << 20, 1u << 20, 0x3333}};
  const std::vector<std::uint8_t> head = EncodeJournalHeader(header);
  const std::vector<std::uint8_t> body = EncodeJournalRecords(header, records);
  // The first byte is the fuzzer's "fix the check values" switch: 1 = on.
  Write("resume_journal", "header-only", Cat({0}, head));
  Write("resume_journal", "three-records", Cat(Cat({0}, head), body));
  std::vector<std::uint8_t> torn = Cat(Cat({1}, head), body);
  torn.resize(torn.size() - 5);
  Write("resume_journal", "torn-tail", torn);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_seeds DIR (normally fuzz/corpus)\n");
    return 2;
  }
  g_root = argv[1];
  ControlSeeds();
  FrameSeeds();
  CodecSeeds();
  HandshakeSeeds();
  JournalSeeds();
  return 0;
}
