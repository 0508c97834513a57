#include "sink/sink_resume.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "braid/unique_fd.h"
#include "resume/resume_decision.h"
#include "security/crypto/payload_checksum.h"
#include "session/directory_names.h"
#include "session/target_plan.h"

namespace braid {
namespace {

/// How long a re-run waits for an earlier sink to let go of a partial file.
constexpr std::chrono::seconds kHeldPartialWait{30};

/// What the sink asks of each file's directory, with that directory kept
/// open while the list stays in it (a tree's files come directory by
/// directory): a lookup walks one name, not the whole path from the root,
/// and the partial files are found in one read of the directory instead of a
/// failed lookup a file. Both were most of a re-run over a million files.
class DirectoryLookups {
 public:
  /// lstat(2) of `path`.
  int Lstat(const std::string& path, struct stat* st) {
    const std::size_t slash = Enter(path);
    if (!fd_.valid()) return ::lstat(path.c_str(), st);  // its own errno
    return ::fstatat(fd_.get(), path.c_str() + slash + 1, st, AT_SYMLINK_NOFOLLOW);
  }
  /// Whether `path` (a partial file's name) is a regular file.
  bool IsPartialFile(const std::string& path) {
    const std::size_t slash = Enter(path);
    struct stat st {};
    // Most directories hold none: no name to make for the look-up then.
    if (listed_ && (partials_.empty() || !partials_.contains(path.substr(slash + 1)))) {
      return false;
    }
    return Lstat(path, &st) == 0 && S_ISREG(st.st_mode);
  }

 private:
  /// Opens and reads the directory of `path` unless it is the one open;
  /// returns where its last slash is.
  std::size_t Enter(const std::string& path) {
    const std::size_t slash = path.rfind('/');
    const std::string_view dir(path.data(), slash == std::string::npos ? 0 : slash);
    if (dir == dir_ && (fd_.valid() || dir_.empty())) return slash;
    dir_ = dir;
    partials_.clear();
    listed_ = false;
    fd_.Reset(dir_.empty() ? -1 : ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!fd_.valid()) return slash;
    listed_ = ForEachName(fd_.get(), [this](std::string_view name) {
                if (name.ends_with(kPartialSuffix)) partials_.emplace(name);
              }) == 0;
    return slash;
  }

  static constexpr std::string_view kPartialSuffix = ".braid-part";
  std::string dir_;
  UniqueFd fd_;
  bool listed_ = false;  ///< `partials_` holds every partial name in the directory
  std::unordered_set<std::string> partials_;
};

TargetState Inspect(const SinkFiles& files, std::uint32_t id, const std::string& final_path,
                    DirectoryLookups& lookups) {
  TargetState t;
  if (files.in_new_directory(id)) return t;
  struct stat st {};
  if (lookups.Lstat(final_path, &st) == 0 && S_ISREG(st.st_mode)) {
    t.final_is_file = true;
    t.final_size = static_cast<std::uint64_t>(st.st_size);
    t.final_mtime_sec = st.st_mtim.tv_sec;
    t.final_mtime_nsec = static_cast<std::uint32_t>(st.st_mtim.tv_nsec);
  }
  t.partial_exists = lookups.IsPartialFile(PartialPath(final_path));
  return t;
}

std::string Where(const std::string& host, const std::string& path) {
  return host.empty() ? path : host + ":" + path;
}

/// Re-reads each journaled block and keeps those whose checksum still matches.
/// Without `verify` only synced records are trusted: an unsynced one may
/// describe a block that a power cut took. A block journaled twice (unsynced,
/// then synced) is read once.
RangeSet VerifyKept(int fd, const DecodedJournal& journal, bool verify,
                    std::vector<JournalRecord>& good, std::uint32_t& failed) {
  RangeSet kept;
  RangeSet checked;
  std::vector<std::uint8_t> block;
  for (const JournalRecord& r : journal.records) {
    if (checked.Contains(r.offset, r.offset + r.length)) continue;
    if (!verify && !r.synced) continue;
    checked.Add(r.offset, r.offset + r.length);
    if (verify) {
      block.resize(r.length);
      ssize_t n = ::pread(fd, block.data(), r.length, static_cast<off_t>(r.offset));
      if (n != static_cast<ssize_t>(r.length) || PayloadChecksum(block) != r.checksum) {
        ++failed;
        continue;
      }
    }
    good.push_back(r);
    kept.Add(r.offset, r.offset + r.length);
  }
  // What was read back may still be only in the page cache (the sink before
  // was killed, the host stayed up): one sync, and the fresh journal can say
  // synced of every block it keeps.
  bool unsynced = std::any_of(good.begin(), good.end(), [](const auto& r) { return !r.synced; });
  if (unsynced && ::fdatasync(fd) == 0) {
    for (JournalRecord& r : good) r.synced = true;
  }
  return kept;
}

/// An earlier attempt's sink may still hold the partial file (a retry that
/// came back before that sink heard its session end): wait for it to let go,
/// saying so, rather than write beside it.
void AwaitHeldPartial(SinkFiles& files, std::uint32_t id, const std::string& where,
                      const std::function<void(const std::string&)>& warn) {
  if (files.AwaitPartialFree(id, std::chrono::steady_clock::now())) return;
  warn(where + ": another braid is still writing it; waiting up to " +
       std::to_string(kHeldPartialWait.count()) + " s for it to end");
  if (!files.AwaitPartialFree(id, std::chrono::steady_clock::now() + kHeldPartialWait)) {
    files.FailHeld(id);
  }
}

/// Gives file `f` its journal path and loads what an earlier run journaled,
/// warning about a journal it cannot use.
std::optional<DecodedJournal> LoadJournal(JournalFiles& journals, const SinkFiles& files,
                                          std::uint32_t id, const std::string& final_path,
                                          std::uint32_t block_size, const std::string& host,
                                          const std::function<void(const std::string&)>& warn) {
  // Two records per block (unsynced, then synced), and a few more for blocks
  // sent again.
  std::uint64_t records = 2 * (files.list().file_size(id) / block_size) + 16;
  journals.SetPath(
      id, JournalPath(final_path),
      std::min<std::uint64_t>(kJournalHeaderSize + records * kJournalRecordSize, 64u << 20),
      /*may_exist=*/!files.in_new_directory(id));
  std::string why;
  std::optional<DecodedJournal> journal;
  if (!files.in_new_directory(id)) journal = journals.Load(id, &why);
  if (!why.empty()) {
    warn(Where(host, JournalPath(final_path)) + ": ignoring the resume journal (" + why + ")");
  }
  return journal;
}

/// A partial file with a journal for this source: keeps the blocks that
/// pass, in a fresh journal, and tells the checkpointer and the summary.
void ResumeKept(SinkFiles& files, JournalFiles& journals, Checkpointer& checkpointer,
                const SinkOpen& open, std::uint32_t id, const JournalHeader& header,
                const DecodedJournal& journal, std::size_t& ranges_total, ResumeSummary& summary) {
  int fd = files.OpenPartialForResume(id);
  std::vector<JournalRecord> good;
  RangeSet kept = VerifyKept(fd, journal, open.verify_kept, good, summary.failed_blocks);
  // Past the protocol's limit, a file is resumed as if nothing were
  // kept: that costs bandwidth, never correctness.
  if (ranges_total + kept.pieces() > kMaxKeptRanges) {
    kept = RangeSet();
    good.clear();
  }
  ranges_total += kept.pieces();
  // A fresh journal of the blocks that passed: compact, and no torn tail
  // for this run's records to follow.
  std::vector<std::uint8_t> bytes = EncodeJournalHeader(header);
  std::vector<std::uint8_t> records = EncodeJournalRecords(header, good);
  bytes.insert(bytes.end(), records.begin(), records.end());
  journals.Rewrite(id, bytes);
  checkpointer.Track(id, header, /*journal_exists=*/true, kept);
  summary.kept_bytes += kept.covered();
  summary.entries.push_back(ResumeEntry::Partial(id, kept.Ranges()));
  files.SetKept(id, std::move(kept));
  ++summary.resumed_files;
}

/// Where the next data of `fd` at or after `at` starts: `size` when only a
/// hole follows, `at` when the file system cannot tell.
std::uint64_t NextData(int fd, std::uint64_t at, std::uint64_t size) {
  off_t data = ::lseek(fd, static_cast<off_t>(at), SEEK_DATA);
  if (data < 0) return errno == ENXIO ? size : at;
  return static_cast<std::uint64_t>(data);
}

/// Reads of a compared file take this many bytes (whole pieces) at a time.
constexpr std::uint64_t kHashReadSize = 1u << 20;

/// The hashes of `fd`'s first `size` bytes, one per `piece`, for the source
/// to compare its own with; nullopt (copy it whole) when it cannot be read
/// to `size`. A read that is a hole from end to end is not made: its pieces
/// hash as zeros.
std::optional<std::vector<BlockHash>> HashTarget(int fd, std::uint64_t size, std::uint32_t piece) {
  const std::uint64_t chunk = std::max<std::uint64_t>(piece, kHashReadSize / piece * piece);
  std::vector<BlockHash> hashes;
  hashes.reserve(static_cast<std::size_t>((size + piece - 1) / piece));
  std::vector<std::uint8_t> buffer(static_cast<std::size_t>(std::min(size, chunk)));
  ZeroBlockHasher zeros;
  std::uint64_t data_from = 0;  // no data before this, as far as is known
  for (std::uint64_t at = 0; at < size; at += chunk) {
    auto want = static_cast<std::size_t>(std::min(size - at, chunk));
    if (at >= data_from) data_from = NextData(fd, at, size);
    const bool hole = data_from >= at + want;
    if (!hole &&
        ::pread(fd, buffer.data(), want, static_cast<off_t>(at)) != static_cast<ssize_t>(want)) {
      return std::nullopt;
    }
    for (std::size_t p = 0; p < want; p += piece) {
      const std::size_t length = std::min<std::size_t>(piece, want - p);
      hashes.push_back(hole ? zeros.Hash(length) : BlockHash128({buffer.data() + p, length}));
    }
  }
  return hashes;
}

/// A compared file's hashes and the bytes each covers.
struct TargetHashes {
  std::uint32_t piece = 0;
  std::vector<BlockHash> hashes;
};

/// The target's hashes in the pieces ComparePieceFor chooses; nullopt (copy
/// it whole) when the list has no room for them or the target cannot be read.
std::optional<TargetHashes> HashTargetInPieces(const std::string& path, std::uint64_t size,
                                               std::uint32_t block, std::size_t& hashes_total) {
  const std::uint32_t piece = ComparePieceFor(size, block, kMaxBlockHashes - hashes_total);
  if (piece == 0) return std::nullopt;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) return std::nullopt;
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  std::optional<std::vector<BlockHash>> hashes = HashTarget(fd.get(), size, piece);
  if (!hashes) return std::nullopt;
  hashes_total += hashes->size();
  return TargetHashes{piece, std::move(*hashes)};
}

/// The journal an earlier run left for `entry`'s partial file, once no
/// other sink holds that file. A small file never gets a journal, and one
/// with no partial file has nothing to resume or remove: a re-run over a
/// million of them keeps no journal path for each.
std::optional<DecodedJournal> EarlierJournal(SinkFiles& files, JournalFiles& journals,
                                             const FileEntry& entry, const std::string& final_path,
                                             const TargetState& target, std::uint32_t block_size,
                                             const std::string& host,
                                             const std::function<void(const std::string&)>& warn) {
  if (target.partial_exists) AwaitHeldPartial(files, entry.id, Where(host, final_path), warn);
  if (entry.size < kResumeMinSize && !target.partial_exists) return std::nullopt;
  return LoadJournal(journals, files, entry.id, final_path, block_size, host, warn);
}

}  // namespace

ResumeSummary PrepareResume(SinkFiles& files, JournalFiles& journals, Checkpointer& checkpointer,
                            const SinkOpen& open, const std::string& host,
                            const std::function<void(const std::string&)>& warn) {
  ResumeSummary summary;
  std::size_t ranges_total = 0;
  std::size_t hashes_total = 0;
  const TargetRules rules{.mode = open.resume,
                          .existing = open.existing,
                          .force = open.force,
                          .verify = open.params.hash != HashAlgorithm::kNone};
  if (files.plan().mode == TargetPlan::Mode::kStream) {
    if (open.resume == ResumeMode::kRequire) {
      throw BraidError(ErrorCode::kNothingToResume,
                       "nothing to resume: " + Where(host, open.target) + " is not a file");
    }
    return summary;
  }
  const PackedList& list = files.list();
  // At most an entry a file, reserved: grown by doubling, the list held its
  // old and new arrays at once (a million compared files, 24 MiB and 48).
  // Pages never written are never made resident, so a copy into an empty
  // target pays nothing for the room.
  summary.entries.reserve(list.size());
  DirectoryLookups lookups;
  for (std::uint32_t id = 0; id < list.size(); ++id) {
    if (list.kind(id) != FileKind::kRegular) continue;
    // A small file in a new directory can have no journal and never gets one:
    // it needs no journal path (a tree of a million small files kept one each).
    if (files.in_new_directory(id) && list.file_size(id) < kResumeMinSize) continue;
    const FileEntry entry = list.Entry(id);
    const std::string final_path = files.final_path(id);
    const TargetState target = Inspect(files, id, final_path, lookups);
    std::optional<DecodedJournal> journal = EarlierJournal(
        files, journals, entry, final_path, target, open.params.block_size, host, warn);
    ResumeDecision d = DecideResume(entry, target, journal, rules);
    if (!d.note.empty()) warn(Where(host, final_path) + ": " + d.note + "; starting it over");
    std::optional<TargetHashes> hashes;
    // -o's ordered writer writes every byte of a file: it has no use for hashes.
    if (d.action == ResumeAction::kCompare && !open.params.ordered) {
      // Pieces past the source's end can never match: not read, not sent.
      hashes = HashTargetInPieces(final_path, std::min(target.final_size, entry.size),
                                  open.params.block_size, hashes_total);
    }
    if (d.discard) {
      ::unlink(files.partial_path(id).c_str());
      journals.Remove(id);
    }
    JournalHeader header{IdentityOf(entry), open.params.block_size};
    switch (d.action) {
      case ResumeAction::kSkip:
        files.MarkInPlace(id);
        AppendComplete(summary.entries, id);
        ++summary.skipped_files;
        break;
      case ResumeAction::kResume:
        ResumeKept(files, journals, checkpointer, open, id, header, *journal, ranges_total,
                   summary);
        break;
      case ResumeAction::kCompare:
        if (hashes) {
          // No journal: a compared file cut short is compared again, as cheaply.
          files.MarkCompared(id, target.final_size);
          summary.entries.push_back(
              ResumeEntry::Compared(id, hashes->piece, std::move(hashes->hashes)));
          ++summary.compared_files;
          break;
        }
        [[fallthrough]];
      case ResumeAction::kCopy:
        if (entry.size >= kResumeMinSize) checkpointer.Track(id, header, false, {});
        break;
    }
  }
  if (open.resume == ResumeMode::kRequire && summary.entries.empty()) {
    throw BraidError(ErrorCode::kNothingToResume,
                     "nothing to resume at " + Where(host, open.target) +
                         ": no partial copy with a journal and no completed file");
  }
  return summary;
}

}  // namespace braid
