#pragma once
/// What a run does with each file given what an earlier run left at the
/// target: skip it (proven in place), resume it (a partial file with a journal
/// for this very source), compare it block by block with the file already
/// there, or copy it from the start. Pure.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "braid/file_entry.h"
#include "proto/control_message.h"
#include "resume/resume_journal.h"

namespace braid {

/// What the sink found under a file's final and partial names.
struct TargetState {
  bool final_is_file = false;  ///< a regular file exists under the final name
  std::uint64_t final_size = 0;
  std::int64_t final_mtime_sec = 0;
  std::uint32_t final_mtime_nsec = 0;
  bool partial_exists = false;
};

enum class ResumeAction {
  kCopy,    ///< from the start
  kSkip,    ///< an earlier run completed it
  kResume,  ///< keep the partial file's journaled blocks (once verified)
  /// A regular file is there but not proven the same: the two ends compare
  /// block hashes and only the blocks that differ travel.
  kCompare,
};

/// What the command line says about files already at the target.
struct TargetRules {
  ResumeMode mode = ResumeMode::kAuto;
  ExistingRule existing = ExistingRule::kQuickCheck;
  /// -f: a file under its final name is replaced whole, never skipped or
  /// compared (partial copies still resume).
  bool force = false;
  /// A hash was asked for (-e): the quick check alone proves nothing.
  bool verify = false;
};

struct ResumeDecision {
  ResumeAction action = ResumeAction::kCopy;
  bool discard = false;  ///< delete the partial file and journal left before
  std::string note;      ///< why an earlier partial copy is not used, for the user
};

SourceIdentity IdentityOf(const FileEntry& entry);

/// The quick check is size and mtime equal to the nanosecond, which holds for
/// a copy made with -p; a copy made without it has its copy time, so it is
/// compared, never trusted on its time.
ResumeDecision DecideResume(const FileEntry& source, const TargetState& target,
                            const std::optional<DecodedJournal>& journal, const TargetRules& rules);

/// At most this many hashes for one compared file (16 bytes each: 512 KiB).
constexpr std::uint64_t kMaxFileHashes = 1u << 15;

/// The piece size a compared file of `size` bytes is hashed in, so that a
/// change costs a piece and not a whole `block`: the smallest power of two
/// from kMinComparePiece that divides `block` and keeps the file's hashes
/// within kMaxFileHashes and `hashes_left` (what the list has room for);
/// `block` when no piece does but whole blocks fit; 0 when nothing fits (the
/// file is copied whole).
std::uint32_t ComparePieceFor(std::uint64_t size, std::uint32_t block, std::size_t hashes_left);

}  // namespace braid
