#pragma once
/// Test helper: a file list entry as the sink tests need one (a directory 0755,
/// anything else 0644).

#include <cstdint>
#include <string>
#include <utility>

#include "braid/file_entry.h"

namespace braid {

inline FileEntry Entry(std::uint32_t id, FileKind kind, std::string path, std::uint64_t size = 0) {
  FileEntry e;
  e.id = id;
  e.kind = kind;
  e.path = std::move(path);
  e.size = size;
  e.mode = kind == FileKind::kDirectory ? 0755 : 0644;
  return e;
}

}  // namespace braid
