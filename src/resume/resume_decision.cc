#include "resume/resume_decision.h"

namespace braid {
namespace {

bool CompletedBefore(const FileEntry& source, const TargetState& t, bool preserve) {
  if (!t.final_is_file || t.final_size != source.size) return false;
  if (preserve) {
    return t.final_mtime_sec == source.mtime_sec && t.final_mtime_nsec == source.mtime_nsec;
  }
  return t.final_mtime_sec > source.mtime_sec ||
         (t.final_mtime_sec == source.mtime_sec && t.final_mtime_nsec >= source.mtime_nsec);
}

}  // namespace

SourceIdentity IdentityOf(const FileEntry& entry) {
  return {entry.size, entry.mtime_sec, entry.mtime_nsec, entry.fingerprint};
}

ResumeDecision DecideResume(const FileEntry& source, const TargetState& target,
                            const std::optional<DecodedJournal>& journal, ResumeMode mode,
                            bool preserve, bool force) {
  ResumeDecision d;
  bool leftovers = target.partial_exists || journal.has_value();
  if (mode == ResumeMode::kOff || source.kind != FileKind::kRegular) {
    d.discard = leftovers;
    return d;
  }
  if (!force && CompletedBefore(source, target, preserve)) {
    d.action = ResumeAction::kSkip;
    d.discard = leftovers;
    return d;
  }
  if (!leftovers) return d;
  d.discard = true;
  if (!journal || !target.partial_exists) return d;  // nothing that says what is in it
  const SourceIdentity& was = journal->header.source;
  SourceIdentity now = IdentityOf(source);
  if (was == now) {
    d.action = ResumeAction::kResume;
    d.discard = false;
    return d;
  }
  if (was.size != now.size) {
    d.note = "the source's size changed since the partial copy was made";
  } else if (was.mtime_sec != now.mtime_sec || was.mtime_nsec != now.mtime_nsec) {
    d.note = "the source was modified since the partial copy was made";
  } else {
    d.note = "the source's content differs from when the partial copy was made";
  }
  return d;
}

}  // namespace braid
