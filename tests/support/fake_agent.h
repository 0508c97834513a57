#pragma once
/// The test as a (possibly malicious) agent driving real `braid --serve`
/// children: the steps of the exchange in docs/protocol.md, one call each.

#include <optional>
#include <string>
#include <vector>

#include "support/serve_child.h"

namespace braid::testing {

/// A fresh secret and session id; one stream and 64 KiB blocks unless asked.
TransferParams TestParams(std::uint16_t streams = 1, std::uint32_t block_size = 64u << 10);
/// SinkOpen into `target`, listening on 127.0.0.1.
SinkOpen SinkOpenFor(const std::string& target, const TransferParams& params);
/// Sends `list` (real codec, one chunk) and `open`; SinkReady, or nullopt
/// with the sink's Error (if it sent one) in `error`.
std::optional<SinkReady> OpenSink(ServeChild& sink, const std::vector<FileEntry>& list,
                                  const SinkOpen& open, std::optional<ErrorMessage>* error);
/// SourceStart: connect to 127.0.0.1:`port` with `params`, skipping `resume`.
SourceStart StartFor(std::uint16_t port, const TransferParams& params,
                     std::vector<ResumeEntry> resume = {});
/// SourceOpen for `paths`; the whole file list (empty if the source failed).
std::vector<FileEntry> OpenSource(ServeChild& source, const std::vector<std::string>& paths);
/// A regular file entry of FakeContent, or a directory.
FileEntry FakeEntry(std::uint32_t id, FileKind kind, const std::string& path,
                    std::uint64_t size = 0);

}  // namespace braid::testing
