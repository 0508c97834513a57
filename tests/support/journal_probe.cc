#include "support/journal_probe.h"

#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include "resume/resume_journal.h"
#include "session/range_set.h"

namespace braid::testing {

std::uint64_t JournaledBytes(const std::string& target) {
  std::ifstream in(target + ".braid-journal", std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  std::optional<DecodedJournal> journal = DecodeJournal(bytes);
  if (!journal) return 0;
  RangeSet blocks;
  for (const JournalRecord& r : journal->records) blocks.Add(r.offset, r.offset + r.length);
  return blocks.covered();
}

}  // namespace braid::testing
