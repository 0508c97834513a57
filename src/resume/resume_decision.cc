#include "resume/resume_decision.h"

#include <algorithm>

namespace braid {
namespace {

/// The file under the final name may be left as it is, without a look inside.
bool ProvenInPlace(const FileEntry& source, const TargetState& t, const TargetRules& rules) {
  if (!t.final_is_file || rules.force) return false;
  bool same_size = t.final_size == source.size;
  // Two empty files hold the same bytes: nothing to compare (-e still
  // reports their hashes, so it compares them all the same).
  if (same_size && source.size == 0 && !rules.verify) return true;
  switch (rules.existing) {
    case ExistingRule::kOmitExisting:
      return true;
    case ExistingRule::kSizeOnly:
      return same_size;
    case ExistingRule::kDelta:
      return false;
    case ExistingRule::kQuickCheck:
      break;
  }
  return !rules.verify && same_size && t.final_mtime_sec == source.mtime_sec &&
         t.final_mtime_nsec == source.mtime_nsec;
}

/// Why the journal beside the partial file is for another source.
std::string WhyOtherSource(const SourceIdentity& was, const SourceIdentity& now) {
  if (was.size != now.size) return "the source's size changed since the partial copy was made";
  if (was.mtime_sec != now.mtime_sec || was.mtime_nsec != now.mtime_nsec) {
    return "the source was modified since the partial copy was made";
  }
  return "the source's content differs from when the partial copy was made";
}

}  // namespace

SourceIdentity IdentityOf(const FileEntry& entry) {
  return {entry.size, entry.mtime_sec, entry.mtime_nsec, entry.fingerprint};
}

ResumeDecision DecideResume(const FileEntry& source, const TargetState& target,
                            const std::optional<DecodedJournal>& journal,
                            const TargetRules& rules) {
  ResumeDecision d;
  d.discard = target.partial_exists || journal.has_value();
  if (rules.mode == ResumeMode::kOff || source.kind != FileKind::kRegular) return d;
  if (ProvenInPlace(source, target, rules)) {
    d.action = ResumeAction::kSkip;
    return d;
  }
  // Only a partial file with a journal of this very source says what is in it.
  if (journal && target.partial_exists) {
    if (journal->header.source == IdentityOf(source)) {
      d.action = ResumeAction::kResume;
      d.discard = false;
      return d;
    }
    d.note = WhyOtherSource(journal->header.source, IdentityOf(source));
  }
  if (target.final_is_file && !rules.force) d.action = ResumeAction::kCompare;
  return d;
}

std::uint32_t ComparePieceFor(std::uint64_t size, std::uint32_t block, std::size_t hashes_left) {
  auto pieces = [size](std::uint64_t piece) { return (size + piece - 1) / piece; };
  for (std::uint64_t piece = kMinComparePiece; piece < block; piece *= 2) {
    if (block % piece != 0) break;  // no power of two past this divides it either
    if (pieces(piece) <= std::min<std::uint64_t>(kMaxFileHashes, hashes_left)) {
      return static_cast<std::uint32_t>(piece);
    }
  }
  return pieces(block) <= hashes_left ? block : 0;
}

}  // namespace braid
