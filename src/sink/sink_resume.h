#pragma once
/// Before a transfer starts, looks at what earlier runs left beside each
/// target file, decides per file (resume_decision), checks kept blocks against
/// the journal, and sets up journaling for this run. IO around pure decisions.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "proto/control_message.h"
#include "resume/checkpointer.h"
#include "resume/journal_files.h"
#include "sink/sink_files.h"

namespace braid {

struct ResumeSummary {
  std::vector<ResumeEntry> entries;  ///< for SinkReady
  std::uint64_t kept_bytes = 0;      ///< verified bytes of partial files
  std::uint32_t failed_blocks = 0;   ///< kept blocks whose checksum no longer matched
  std::size_t skipped_files = 0;     ///< already complete
  std::size_t resumed_files = 0;
  std::size_t compared_files = 0;  ///< under their final names, compared block by block
};

/// Call before SinkFiles::Prepare. Throws BraidError (kNothingToResume with -a
/// when nothing is found; target errors naming host and path).
ResumeSummary PrepareResume(SinkFiles& files, JournalFiles& journals, Checkpointer& checkpointer,
                            const SinkOpen& open, const std::string& host,
                            const std::function<void(const std::string&)>& warn);

}  // namespace braid
