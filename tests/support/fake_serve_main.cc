/// braid_fake_serve: a malicious `braid --serve` source for the hostile-peer
/// tests. The real agent starts it over ssh with
/// `-T "braid_fake_serve SCENARIO [ARG]"`; it answers the control protocol on
/// stdin/stdout, sends the scenario's file list and, once told to start,
/// connects to the real sink with the real handshake and sends the
/// scenario's frames. Scenarios are listed in ListFor() and PlayData(), and
/// the escape-* ones, which say things meant for the user's terminal, in Run().
/// Two are about memory: many-entries (a source) and sink-complete-run (a
/// sink, started as the remote destination).

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "security/crypto/payload_checksum.h"
#include "support/fake_peer.h"
#include "transport/block_codec.h"

namespace braid::testing {
namespace {

constexpr std::uint64_t kFileSize = 100000;

FileEntry Entry(std::uint32_t id, FileKind kind, std::string path, std::uint64_t size = 0) {
  FileEntry e;
  e.id = id;
  e.kind = kind;
  e.path = std::move(path);
  e.size = kind == FileKind::kRegular ? size : 0;
  e.mode = kind == FileKind::kDirectory ? 0755 : 0644;
  return e;
}

std::string TopName(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path.substr(path.find_last_of('/') + 1);
}

/// The file list each scenario announces for a source named `name`.
std::vector<FileEntry> ListFor(const std::string& scenario, const std::string& name,
                               const std::string& arg) {
  using K = FileKind;
  const std::uint64_t n = kFileSize;
  if (scenario == "dotdot") return {Entry(0, K::kRegular, "../outside/evil", n)};
  if (scenario == "absolute") return {Entry(0, K::kRegular, arg + "/evil", n)};
  if (scenario == "nul") return {Entry(0, K::kRegular, name + std::string("\0evil", 5), n)};
  if (scenario == "empty-component") return {Entry(0, K::kRegular, name + "//evil", n)};
  if (scenario == "dot-component") return {Entry(0, K::kRegular, name + "/./evil", n)};
  if (scenario == "wrong-top") return {Entry(0, K::kRegular, "evil", n)};
  if (scenario == "dup-ids")
    return {Entry(0, K::kRegular, name, n), Entry(0, K::kRegular, name, n)};
  if (scenario == "ids-out-of-order") {
    return {Entry(1, K::kRegular, name, n), Entry(0, K::kRegular, name + "2", n)};
  }
  if (scenario == "dir-without-r") {
    return {Entry(0, K::kDirectory, name), Entry(1, K::kRegular, name + "/evil", n)};
  }
  if (scenario == "symlink-then-file") {
    FileEntry link = Entry(1, K::kSymlink, name + "/l");
    link.link_target = arg;
    return {Entry(0, K::kDirectory, name), link, Entry(2, K::kRegular, name + "/l/evil", n)};
  }
  if (scenario == "file-in-unlisted-dir") return {Entry(0, K::kRegular, name + "/evil", n)};
  if (scenario == "file-in-listed-dir") {
    return {Entry(0, K::kDirectory, name), Entry(1, K::kRegular, name + "/evil", n)};
  }
  if (scenario == "data-for-directory") {
    return {Entry(0, K::kDirectory, name), Entry(1, K::kRegular, name + "/f", n)};
  }
  return {Entry(0, K::kRegular, name, n)};
}

/// A data frame for file 0 at offset 0, flagged compressed: `raw` deflated as
/// a real -c source does, stating `raw_length` bytes.
bool CompressedFrame(int fd, const std::string& raw, std::uint32_t raw_length) {
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(raw.data()),
                                            raw.size());
  BlockCompressor compressor(1, bytes.size());
  const EncodedBlock block = compressor.Encode(bytes);
  return SendFrame(fd,
                   FrameHeader{.type = FrameType::kData,
                               .flags = kFlagCompressed,
                               .length = static_cast<std::uint32_t>(block.payload.size()),
                               .raw_length = raw_length},
                   block.payload);
}

/// The scenario's frames on an authenticated stream; true if the sink took
/// everything (the fake then reports Done). A hostile scenario sends its
/// frames and then waits for the sink to drop the stream.
bool PlayData(const std::string& scenario, int fd, const std::vector<FileEntry>& list,
              std::uint32_t block) {
  const std::uint64_t n = kFileSize;
  const auto first = static_cast<std::uint32_t>(std::min<std::uint64_t>(block, n));
  if (scenario == "offset-past-size") {
    DataFrame(fd, 0, n, 10);
  } else if (scenario == "block-crosses-end") {
    DataFrame(fd, 0, n - 5, 10);
  } else if (scenario == "data-unknown-id") {
    DataFrame(fd, 7, 0, 10);
  } else if (scenario == "data-for-directory") {
    DataFrame(fd, 0, 0, 10);
  } else if (scenario == "oversized-frame") {
    SendFrame(fd,
              FrameHeader{.type = FrameType::kData, .length = block + 1, .raw_length = block + 1},
              {}, 0);
  } else if (scenario == "lying-checksum") {
    std::string content = FakeContent(first);
    std::uint64_t right =
        PayloadChecksum({reinterpret_cast<const std::uint8_t*>(content.data()), first});
    DataFrame(fd, 0, 0, first, right ^ 1);
  } else if (scenario == "compressed-not-negotiated") {
    // A well-formed compressed block on a session opened without -c.
    CompressedFrame(fd, FakeContent(first), first);
  } else if (scenario == "compressed-bomb") {
    // With -c: twice the block in zeros, stated as one block.
    CompressedFrame(fd, std::string(2 * std::size_t{first}, '\0'), first);
  } else if (scenario == "file-end-wrong-size") {
    for (std::uint64_t at = 0; at < n; at += block) {
      DataFrame(fd, 0, at, static_cast<std::uint32_t>(std::min<std::uint64_t>(block, n - at)));
    }
    FileEndFrame(fd, 0, n + 1);
  } else if (scenario == "digest-wrong-length" || scenario == "digest-mismatch") {
    // With -E sha256: every byte, then a file end whose digest is an MD5's
    // length (16, not 32), or of the right length but not the file's.
    for (std::uint64_t at = 0; at < n; at += block) {
      DataFrame(fd, 0, at, static_cast<std::uint32_t>(std::min<std::uint64_t>(block, n - at)));
    }
    std::vector<std::uint8_t> digest(scenario == "digest-mismatch" ? 32 : 16, 0xab);
    SendFrame(fd,
              FrameHeader{.type = FrameType::kFileEnd,
                          .flags = kFlagHasDigest,
                          .length = static_cast<std::uint32_t>(digest.size()),
                          .offset = n},
              digest);
    FinishPasses(fd, block);
  } else if (scenario == "short-pass") {
    // Half the file, its end, then passes that never bring the rest.
    if (SendFiles(fd, list, block, n / 2)) FinishPasses(fd, block);
  } else if (scenario == "stall-silent") {
    // Connected and authenticated, and then nothing at all.
  } else if (scenario == "orphan-stream") {
    // Everything, on this stream; of the two connected, the other's
    // connection is as good as timed out here: it says nothing, ever.
    return SendFiles(fd, list, block) && FinishPasses(fd, block, 2, 1);
  } else {
    return SendFiles(fd, list, block) && FinishPasses(fd, block);
  }
  WaitForEof(fd, 60);
  return false;
}

/// many-entries: a directory and 2^20 empty files in it, 1,048,577 entries,
/// sent in chunks as a real source does; then, told to start, it stops with
/// an error: what is measured is what the list cost the agent and the sink.
constexpr std::uint32_t kManyEntries = (1u << 20) + 1;

void SendManyEntries(FakeControl& control, const std::string& name) {
  std::vector<FileEntry> chunk;
  for (std::uint32_t id = 0; id < kManyEntries; ++id) {
    char leaf[16];
    std::snprintf(leaf, sizeof leaf, "/%07u", id);
    chunk.push_back(id == 0 ? Entry(0, FileKind::kDirectory, name)
                            : Entry(id, FileKind::kRegular, name + leaf, 0));
    if (chunk.size() == kMaxEntriesPerList || id + 1 == kManyEntries) {
      std::vector<std::uint8_t> body = EncodeRawFileList(chunk, id + 1 == kManyEntries);
      control.SendRaw(static_cast<std::uint32_t>(body.size()), body);
      chunk.clear();
    }
  }
}

/// Until the agent says Bye or Abort, or goes away.
void AwaitEnd(FakeControl& control) {
  for (int i = 0; i < 10000; ++i) {
    std::optional<ControlMessage> m = control.Receive();
    if (!m || std::holds_alternative<Bye>(*m) || std::holds_alternative<Abort>(*m)) return;
  }
}

/// What the escape-* scenarios say: a forged window title, a screen clear, and
/// a line break followed by a line that reads like braid's own summary.
constexpr char kForgery[] =
    "\x1b]0;pwned\x07\x1b[2Jfine\nbraid: copied 1.00 TiB in 1 files\xc2\x9b";

/// sink-complete-run: a sink that answers SinkOpen, for any list, with a
/// resume list of one run of 2^24 complete files (9 bytes of items).
int RunSink(FakeControl& control) {
  for (;;) {
    std::optional<FileList> list = control.Await<FileList>();
    if (!list) return 1;
    if (list->last) break;
  }
  if (!control.Await<SinkOpen>()) return 1;
  SinkReady ready;
  ready.addresses = {"127.0.0.1"};
  ready.port = 9;  // never reached: the agent must refuse the list first
  ready.resume = {ResumeEntry::Complete(0, 1u << 24)};
  control.Send(ready);
  AwaitEnd(control);
  return 0;
}

int Run(const std::string& scenario, const std::string& arg) {
  FakeControl control(0, 1, 60);
  if (scenario == "escape-stderr") std::fprintf(stderr, "%s\n", kForgery);
  if (!control.Await<Hello>()) return 1;
  control.Send(HelloReply{kProtocolVersion, BraidVersion(), "fake", ""});
  if (scenario == "sink-complete-run") return RunSink(control);
  if (scenario == "oversized-control") {
    std::vector<std::uint8_t> body(64, 0);
    control.SendRaw(static_cast<std::uint32_t>(kMaxControlMessage + 1), body);
    AwaitEnd(control);
    return 0;
  }
  std::optional<SourceOpen> open = control.Await<SourceOpen>();
  if (!open || open->paths.empty()) return 1;
  if (scenario == "escape-error") {
    control.Send(ErrorMessage{ErrorCode::kSourceUnreadable, kForgery});
    AwaitEnd(control);
    return 0;
  }
  if (scenario == "escape-warning") control.Send(Warning{kForgery});
  if (scenario == "many-entries") {
    SendManyEntries(control, TopName(open->paths.front()));
    if (!control.Await<SourceStart>()) return 1;
    control.Send(ErrorMessage{ErrorCode::kSourceUnreadable, "fake: the list was the test"});
    AwaitEnd(control);
    return 0;
  }
  std::vector<FileEntry> list = ListFor(scenario, TopName(open->paths.front()), arg);
  std::vector<std::uint8_t> body = EncodeRawFileList(list, /*last=*/true);
  control.SendRaw(static_cast<std::uint32_t>(body.size()), body);
  std::optional<SourceStart> start = control.Await<SourceStart>();
  if (!start) return 1;
  UniqueFd stream = ConnectStream(start->port, start->params.secret, start->params.session, 0);
  if (!stream.valid()) return 1;
  UniqueFd silent;  // orphan-stream: connected, and kept open until the end
  if (scenario == "orphan-stream") {
    silent = ConnectStream(start->port, start->params.secret, start->params.session, 1);
    if (!silent.valid()) return 1;
  }
  if (PlayData(scenario, stream.get(), list, start->params.block_size)) {
    std::uint64_t bytes = 0;
    for (const FileEntry& e : list) bytes += e.kind == FileKind::kRegular ? e.size : 0;
    control.Send(Done{bytes, list.size(), 1, bytes, 0});
  }
  AwaitEnd(control);
  return 0;
}

}  // namespace
}  // namespace braid::testing

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);
  std::string scenario = argc > 1 ? argv[1] : "honest";
  std::string arg = argc > 2 && std::string(argv[2]) != "--serve" ? argv[2] : "";
  return braid::testing::Run(scenario, arg);
}
