#pragma once
/// What a run does with each file given what an earlier run left at the
/// target: skip it (already in place), resume it (a partial file with a journal
/// for this very source), or copy it from the start. Pure.

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
};

struct ResumeDecision {
  ResumeAction action = ResumeAction::kCopy;
  bool discard = false;  ///< delete the partial file and journal left before
  std::string note;      ///< why an earlier partial copy is not used, for the user
};

SourceIdentity IdentityOf(const FileEntry& entry);

/// `preserve` (-p): a completed copy has the source's time exactly; without it
/// a completed copy is at least as new as the source. `force` (-f): files under
/// their final name are replaced, never skipped (partial copies still resume).
ResumeDecision DecideResume(const FileEntry& source, const TargetState& target,
                            const std::optional<DecodedJournal>& journal, ResumeMode mode,
                            bool preserve, bool force);

}  // namespace braid
