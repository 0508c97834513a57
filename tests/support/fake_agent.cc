#include "support/fake_agent.h"

namespace braid::testing {

TransferParams TestParams(std::uint16_t streams, std::uint32_t block_size) {
  TransferParams p;
  p.streams = streams;
  p.min_streams = streams;
  p.block_size = block_size;
  p.secret = RandomArray<kSecretSize>();
  p.session = RandomArray<kSessionIdSize>();
  p.cipher = Cipher::kNone;  // the fake peers speak clear frames (sealing: sealed_stream_test)
  return p;
}

SinkOpen SinkOpenFor(const std::string& target, const TransferParams& params) {
  SinkOpen open;
  open.target = target;
  open.recursive = true;
  open.listen_address = "127.0.0.1";
  open.params = params;
  return open;
}

std::optional<SinkReady> OpenSink(ServeChild& sink, const std::vector<FileEntry>& list,
                                  const SinkOpen& open, std::optional<ErrorMessage>* error) {
  sink.control().Send(FileList{list, true});
  sink.control().Send(open);
  return sink.control().Await<SinkReady>(error);
}

SourceStart StartFor(std::uint16_t port, const TransferParams& params,
                     std::vector<ResumeEntry> resume) {
  SourceStart start;
  start.addresses = {"127.0.0.1"};
  start.port = port;
  start.params = params;
  start.resume = std::move(resume);
  return start;
}

std::vector<FileEntry> OpenSource(ServeChild& source, const std::vector<std::string>& paths) {
  SourceOpen open;
  open.paths = paths;
  open.recursive = true;
  source.control().Send(open);
  std::vector<FileEntry> all;
  for (int chunk = 0; chunk < 1000; ++chunk) {
    std::optional<FileList> list = source.control().Await<FileList>();
    if (!list) return {};
    all.insert(all.end(), list->entries.begin(), list->entries.end());
    if (list->last) break;
  }
  return all;
}

FileEntry FakeEntry(std::uint32_t id, FileKind kind, const std::string& path, std::uint64_t size) {
  FileEntry e;
  e.id = id;
  e.kind = kind;
  e.path = path;
  e.size = kind == FileKind::kRegular ? size : 0;
  e.mode = kind == FileKind::kDirectory ? 0755 : 0644;
  return e;
}

}  // namespace braid::testing
