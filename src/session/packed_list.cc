#include "session/packed_list.h"

#include <algorithm>
#include <limits>

#include "braid/error.h"

namespace braid {
namespace {

/// The offsets into the arenas are 32 bits: 4 GiB of names, the default
/// --max-list-bytes for the whole list.
constexpr std::uint64_t kMaxArena = std::numeric_limits<std::uint32_t>::max();

[[noreturn]] void Refuse(const std::string& why) {
  throw BraidError(ErrorCode::kProtocol, "protocol error: file list: " + why);
}

/// The arena offset for appending `more` bytes to `arena`, refused past 32 bits.
std::uint32_t AppendAt(const std::string& arena, std::size_t more) {
  if (arena.size() + more > kMaxArena) Refuse("its names pass 4 GiB");
  return static_cast<std::uint32_t>(arena.size());
}

}  // namespace

PackedList::PackedList(const std::vector<FileEntry>& entries) {
  for (const FileEntry& e : entries) Add(e);
}

std::uint32_t PackedList::Store(const std::string& path) {
  if (names_.empty() || names_.back().size() + path.size() > kNameBlockBytes) {
    // A name block's index is the high 12 bits of a 32-bit place.
    if (names_.size() == (std::size_t{1} << 12)) Refuse("its names pass 4 GiB");
    names_.emplace_back().reserve(kNameBlockBytes);
  }
  std::string& block = names_.back();
  auto at = static_cast<std::uint32_t>(((names_.size() - 1) << 20) | block.size());
  block += path;
  return at;
}

void PackedList::Add(const FileEntry& e) {
  if (e.id != count_) Refuse("entry " + std::to_string(e.id) + " out of order");
  if (e.path.size() > std::numeric_limits<std::uint16_t>::max()) Refuse("a path past 64 KiB");
  if (e.mode > 07777) Refuse("file mode out of range");
  Fixed f{};
  f.size = e.size;
  f.mtime_sec = e.mtime_sec;
  f.mtime_nsec = e.mtime_nsec;
  f.name_at = Store(e.path);
  f.name_length = static_cast<std::uint16_t>(e.path.size());
  f.mode = static_cast<std::uint16_t>(e.mode);
  f.top = e.top;
  f.kind = e.kind;
  f.sparse = e.sparse;
  if (e.kind == FileKind::kSymlink || e.kind == FileKind::kHardLink) {
    links_.push_back({e.id, AppendAt(link_names_, e.link_target.size())});
    link_names_ += e.link_target;
  }
  if (e.fingerprint != 0) fingerprints_.emplace_back(e.id, e.fingerprint);
  if (owners_.empty() || owners_.back().uid != e.uid || owners_.back().gid != e.gid) {
    owners_.push_back({e.id, e.uid, e.gid});
  }
  // Not make_unique: its value-initialisation would touch every page of the block now.
  if (count_ % kEntriesPerBlock == 0) fixed_.emplace_back(new Fixed[kEntriesPerBlock]);
  fixed_.back()[count_ % kEntriesPerBlock] = f;
  ++count_;
}

std::string_view PackedList::path(std::uint32_t id) const {
  const Fixed& f = At(id);
  return std::string_view(names_[f.name_at >> 20])
      .substr(f.name_at & (kNameBlockBytes - 1), f.name_length);
}

const PackedList::OwnerRun& PackedList::OwnerOf(std::uint32_t id) const {
  // The last run that starts at or before `id`; the first starts at entry 0.
  auto it = std::upper_bound(owners_.begin(), owners_.end(), id,
                             [](std::uint32_t want, const OwnerRun& r) { return want < r.first; });
  return *std::prev(it);
}

std::string_view PackedList::link_target(std::uint32_t id) const {
  auto it = std::lower_bound(links_.begin(), links_.end(), id,
                             [](const Link& l, std::uint32_t want) { return l.id < want; });
  if (it == links_.end() || it->id != id) return {};
  std::size_t end = it + 1 == links_.end() ? link_names_.size() : (it + 1)->begin;
  return std::string_view(link_names_).substr(it->begin, end - it->begin);
}

std::uint64_t PackedList::fingerprint(std::uint32_t id) const {
  auto it = std::lower_bound(fingerprints_.begin(), fingerprints_.end(), id,
                             [](const std::pair<std::uint32_t, std::uint64_t>& p,
                                std::uint32_t want) { return p.first < want; });
  return it != fingerprints_.end() && it->first == id ? it->second : 0;
}

FileEntry PackedList::Entry(std::uint32_t id) const {
  const Fixed& f = At(id);
  FileEntry e;
  e.id = id;
  e.top = f.top;
  e.kind = f.kind;
  e.path = std::string(path(id));
  e.size = f.size;
  e.mode = f.mode;
  e.mtime_sec = f.mtime_sec;
  e.mtime_nsec = f.mtime_nsec;
  e.uid = uid(id);
  e.gid = gid(id);
  e.link_target = std::string(link_target(id));
  e.fingerprint = fingerprint(id);
  e.sparse = f.sparse;
  return e;
}

std::size_t PackedList::bytes_used() const {
  std::size_t names = 0;
  for (const std::string& block : names_) names += block.capacity();
  return fixed_.size() * kEntriesPerBlock * sizeof(Fixed) + names +
         owners_.capacity() * sizeof(OwnerRun) + links_.capacity() * sizeof(Link) +
         link_names_.capacity() + fingerprints_.capacity() * sizeof(fingerprints_[0]);
}

}  // namespace braid
