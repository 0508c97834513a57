#include "resume/resume_decision.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "braid/file_entry.h"
#include "proto/control_message.h"
#include "resume/resume_journal.h"

namespace braid {
namespace {

constexpr std::int64_t kSec = 1700000000;
constexpr std::uint32_t kNsec = 500000000;
constexpr std::uint64_t kSize = 10u << 20;

FileEntry Source() {
  FileEntry e;
  e.id = 4;
  e.kind = FileKind::kRegular;
  e.path = "top/big.bin";
  e.size = kSize;
  e.mtime_sec = kSec;
  e.mtime_nsec = kNsec;
  e.fingerprint = 0xABCDEF0123456789ull;
  return e;
}

/// What is under the final name.
enum class Final {
  kAbsent,
  kSameTime,       ///< same size, the source's time exactly
  kNewer,          ///< same size, a second newer
  kNewerNsec,      ///< same size, a nanosecond newer
  kOlder,          ///< same size, a second older
  kOlderNsec,      ///< same size, a nanosecond older
  kOtherSize,      ///< newer, but a byte longer
  kOtherSizeSame,  ///< the source's time exactly, but a byte shorter
};

/// The journal beside the partial file, against the source.
enum class Jnl {
  kNone,
  kMatch,
  kSize,         ///< the source's size changed
  kSec,          ///< its time changed by a second
  kNsec,         ///< its time changed by a nanosecond
  kFingerprint,  ///< same size and time, other content
  kBlockSize,    ///< written with another block size: still this source
};

TargetState TargetFor(Final final, bool partial) {
  TargetState t;
  t.partial_exists = partial;
  if (final == Final::kAbsent) return t;
  t.final_is_file = true;
  t.final_size = kSize;
  t.final_mtime_sec = kSec;
  t.final_mtime_nsec = kNsec;
  switch (final) {
    case Final::kNewer:
      t.final_mtime_sec += 1;
      break;
    case Final::kNewerNsec:
      t.final_mtime_nsec += 1;
      break;
    case Final::kOlder:
      t.final_mtime_sec -= 1;
      break;
    case Final::kOlderNsec:
      t.final_mtime_nsec -= 1;
      break;
    case Final::kOtherSize:
      t.final_size += 1;
      t.final_mtime_sec += 100;
      break;
    case Final::kOtherSizeSame:
      t.final_size -= 1;
      break;
    default:
      break;
  }
  return t;
}

std::optional<DecodedJournal> JournalFor(Jnl j) {
  if (j == Jnl::kNone) return std::nullopt;
  DecodedJournal d;
  d.header.source = IdentityOf(Source());
  d.header.block_size = 1u << 20;
  d.records = {{0, 1u << 20, 42}};
  d.valid_bytes = kJournalHeaderSize + kJournalRecordSize;
  switch (j) {
    case Jnl::kSize:
      d.header.source.size += 4096;
      break;
    case Jnl::kSec:
      d.header.source.mtime_sec -= 1;
      break;
    case Jnl::kNsec:
      d.header.source.mtime_nsec += 1;
      break;
    case Jnl::kFingerprint:
      d.header.source.fingerprint ^= 0x8000;
      break;
    case Jnl::kBlockSize:
      d.header.block_size = 4u << 20;
      break;
    default:
      break;
  }
  return d;
}

/// Which note the user gets.
enum class Note { kNone, kSize, kModified, kContent };

struct Case {
  const char* name;
  ResumeMode mode;
  bool force;
  ExistingRule existing;
  bool verify;
  Final final;
  bool partial;
  Jnl journal;
  ResumeAction action;
  bool discard;
  Note note;
};

std::ostream& operator<<(std::ostream& os, const Case& c) { return os << c.name; }

constexpr ResumeMode kAuto = ResumeMode::kAuto;
constexpr ResumeMode kRequire = ResumeMode::kRequire;
constexpr ResumeMode kOff = ResumeMode::kOff;
constexpr ResumeAction kCopy = ResumeAction::kCopy;
constexpr ResumeAction kSkip = ResumeAction::kSkip;
constexpr ResumeAction kResume = ResumeAction::kResume;
constexpr ResumeAction kCompare = ResumeAction::kCompare;
constexpr ExistingRule kQuick = ExistingRule::kQuickCheck;
constexpr ExistingRule kDelta = ExistingRule::kDelta;
constexpr ExistingRule kOmit = ExistingRule::kOmitExisting;
constexpr ExistingRule kSizeOnly = ExistingRule::kSizeOnly;

// clang-format off
const Case kCases[] = {
  // name                                   mode      force  existing  verify final                 partial journal            action    discard note
  {"fresh target",                          kAuto,    false, kQuick,   false, Final::kAbsent,       false, Jnl::kNone,        kCopy,    false, Note::kNone},
  {"fresh target, require",                 kRequire, false, kQuick,   false, Final::kAbsent,       false, Jnl::kNone,        kCopy,    false, Note::kNone},
  {"fresh target, off",                     kOff,     false, kQuick,   false, Final::kAbsent,       false, Jnl::kNone,        kCopy,    false, Note::kNone},
  {"fresh target, -O",                      kAuto,    false, kOmit,    false, Final::kAbsent,       false, Jnl::kNone,        kCopy,    false, Note::kNone},
  // The quick check: size and time to the nanosecond (a copy made with -p).
  {"same size and time: skipped",           kAuto,    false, kQuick,   false, Final::kSameTime,     false, Jnl::kNone,        kSkip,    false, Note::kNone},
  {"same, require",                         kRequire, false, kQuick,   false, Final::kSameTime,     false, Jnl::kNone,        kSkip,    false, Note::kNone},
  // A copy made without -p has its copy time: never trusted on it.
  {"newer: compared",                       kAuto,    false, kQuick,   false, Final::kNewer,        false, Jnl::kNone,        kCompare, false, Note::kNone},
  {"a nanosecond newer: compared",          kAuto,    false, kQuick,   false, Final::kNewerNsec,    false, Jnl::kNone,        kCompare, false, Note::kNone},
  {"older: compared",                       kAuto,    false, kQuick,   false, Final::kOlder,        false, Jnl::kNone,        kCompare, false, Note::kNone},
  {"a nanosecond older: compared",          kAuto,    false, kQuick,   false, Final::kOlderNsec,    false, Jnl::kNone,        kCompare, false, Note::kNone},
  {"other size: compared",                  kAuto,    false, kQuick,   false, Final::kOtherSize,    false, Jnl::kNone,        kCompare, false, Note::kNone},
  {"other size, same time: compared",       kAuto,    false, kQuick,   false, Final::kOtherSizeSame, false, Jnl::kNone,       kCompare, false, Note::kNone},
  {"newer, require",                        kRequire, false, kQuick,   false, Final::kNewer,        false, Jnl::kNone,        kCompare, false, Note::kNone},
  // A hash asked for, or --delta: the quick check proves nothing.
  {"-e: same time is compared",             kAuto,    false, kQuick,   true,  Final::kSameTime,     false, Jnl::kNone,        kCompare, false, Note::kNone},
  {"--delta: same time is compared",        kAuto,    false, kDelta,   false, Final::kSameTime,     false, Jnl::kNone,        kCompare, false, Note::kNone},
  {"--delta: newer is compared",            kAuto,    false, kDelta,   false, Final::kNewer,        false, Jnl::kNone,        kCompare, false, Note::kNone},
  // -O and --size-only skip without a look inside, even under -e.
  {"-O skips any file",                     kAuto,    false, kOmit,    true,  Final::kOtherSize,    false, Jnl::kNone,        kSkip,    false, Note::kNone},
  {"--size-only skips the same size",       kAuto,    false, kSizeOnly, false, Final::kNewer,       false, Jnl::kNone,        kSkip,    false, Note::kNone},
  {"--size-only compares another size",     kAuto,    false, kSizeOnly, false, Final::kOtherSize,   false, Jnl::kNone,        kCompare, false, Note::kNone},
  // -f replaces whole; --no-resume copies whole.
  {"-f replaces a done file",               kAuto,    true,  kQuick,   false, Final::kSameTime,     false, Jnl::kNone,        kCopy,    false, Note::kNone},
  {"-f -O still replaces",                  kAuto,    true,  kOmit,    false, Final::kSameTime,     false, Jnl::kNone,        kCopy,    false, Note::kNone},
  {"off recopies a done file",              kOff,     false, kQuick,   false, Final::kSameTime,     false, Jnl::kNone,        kCopy,    false, Note::kNone},
  // Done, and leftovers of an older attempt beside it: clean up.
  {"done, stale partial",                   kAuto,    false, kQuick,   false, Final::kNewer,        true,  Jnl::kNone,        kCompare, true,  Note::kNone},
  {"done, stale journal",                   kAuto,    false, kQuick,   false, Final::kNewer,        false, Jnl::kMatch,       kCompare, true,  Note::kNone},
  {"same, stale partial and journal",       kAuto,    false, kQuick,   false, Final::kSameTime,     true,  Jnl::kMatch,       kSkip,    true,  Note::kNone},
  // A partial copy with a journal of this very source.
  {"resume",                                kAuto,    false, kQuick,   false, Final::kAbsent,       true,  Jnl::kMatch,       kResume,  false, Note::kNone},
  {"resume, require",                       kRequire, false, kQuick,   false, Final::kAbsent,       true,  Jnl::kMatch,       kResume,  false, Note::kNone},
  {"resume, -e",                            kAuto,    false, kQuick,   true,  Final::kAbsent,       true,  Jnl::kMatch,       kResume,  false, Note::kNone},
  {"resume, other block size",              kAuto,    false, kQuick,   false, Final::kAbsent,       true,  Jnl::kBlockSize,   kResume,  false, Note::kNone},
  {"resume beside an older final file",     kAuto,    false, kQuick,   false, Final::kOlder,        true,  Jnl::kMatch,       kResume,  false, Note::kNone},
  {"-f still resumes a partial copy",       kAuto,    true,  kQuick,   false, Final::kAbsent,       true,  Jnl::kMatch,       kResume,  false, Note::kNone},
  {"-f resumes even beside a done file",    kAuto,    true,  kQuick,   false, Final::kSameTime,     true,  Jnl::kMatch,       kResume,  false, Note::kNone},
  {"off discards a resumable copy",         kOff,     false, kQuick,   false, Final::kAbsent,       true,  Jnl::kMatch,       kCopy,    true,  Note::kNone},
  {"off discards a partial alone",          kOff,     false, kQuick,   false, Final::kAbsent,       true,  Jnl::kNone,        kCopy,    true,  Note::kNone},
  {"off discards a journal alone",          kOff,     false, kQuick,   false, Final::kAbsent,       false, Jnl::kMatch,       kCopy,    true,  Note::kNone},
  {"off, -f, done, leftovers",              kOff,     true,  kQuick,   false, Final::kSameTime,     true,  Jnl::kMatch,       kCopy,    true,  Note::kNone},
  // Half of what resuming needs: start over, silently.
  {"partial without a journal",             kAuto,    false, kQuick,   false, Final::kAbsent,       true,  Jnl::kNone,        kCopy,    true,  Note::kNone},
  {"journal without a partial",             kAuto,    false, kQuick,   false, Final::kAbsent,       false, Jnl::kMatch,       kCopy,    true,  Note::kNone},
  {"journal without a partial, require",    kRequire, false, kQuick,   false, Final::kAbsent,       false, Jnl::kMatch,       kCopy,    true,  Note::kNone},
  {"changed journal without a partial",     kAuto,    false, kQuick,   false, Final::kAbsent,       false, Jnl::kSize,        kCopy,    true,  Note::kNone},
  // The source changed since the partial copy was made: start over, and say why.
  {"source size changed",                   kAuto,    false, kQuick,   false, Final::kAbsent,       true,  Jnl::kSize,        kCopy,    true,  Note::kSize},
  {"source modified (seconds)",             kAuto,    false, kQuick,   false, Final::kAbsent,       true,  Jnl::kSec,         kCopy,    true,  Note::kModified},
  {"source modified (nanoseconds)",         kAuto,    false, kQuick,   false, Final::kAbsent,       true,  Jnl::kNsec,        kCopy,    true,  Note::kModified},
  {"source content differs",                kAuto,    false, kQuick,   false, Final::kAbsent,       true,  Jnl::kFingerprint, kCopy,    true,  Note::kContent},
  {"source changed, require",               kRequire, false, kQuick,   false, Final::kAbsent,       true,  Jnl::kFingerprint, kCopy,    true,  Note::kContent},
  {"source changed, -f",                    kAuto,    true,  kQuick,   false, Final::kOlder,        true,  Jnl::kSec,         kCopy,    true,  Note::kModified},
  {"source changed, a version there",       kAuto,    false, kQuick,   false, Final::kNewer,        true,  Jnl::kSize,        kCompare, true,  Note::kSize},
};
// clang-format on

TargetRules RulesOf(ResumeMode mode, bool force, ExistingRule existing = kQuick,
                    bool verify = false) {
  return {.mode = mode, .existing = existing, .force = force, .verify = verify};
}

class DecideResumeTest : public ::testing::TestWithParam<Case> {};

bool NoteMatches(const std::string& note, Note want) {
  switch (want) {
    case Note::kNone:
      return note.empty();
    case Note::kSize:
      return note.find("size") != std::string::npos;
    case Note::kModified:
      return note.find("modified") != std::string::npos;
    case Note::kContent:
      return note.find("content") != std::string::npos;
  }
  return false;
}

TEST_P(DecideResumeTest, Decides) {
  const Case& c = GetParam();
  ResumeDecision d = DecideResume(Source(), TargetFor(c.final, c.partial), JournalFor(c.journal),
                                  RulesOf(c.mode, c.force, c.existing, c.verify));
  EXPECT_EQ(d.action, c.action);
  EXPECT_EQ(d.discard, c.discard);
  EXPECT_TRUE(NoteMatches(d.note, c.note)) << "note: \"" << d.note << "\"";
}

INSTANTIATE_TEST_SUITE_P(Table, DecideResumeTest, ::testing::ValuesIn(kCases));

TEST(DecideResumeNotesTest, EachKindOfChangeHasItsOwnNote) {
  std::set<std::string> notes;
  for (Jnl j : {Jnl::kSize, Jnl::kSec, Jnl::kNsec, Jnl::kFingerprint}) {
    ResumeDecision d = DecideResume(Source(), TargetFor(Final::kAbsent, true), JournalFor(j),
                                    RulesOf(kAuto, false));
    EXPECT_FALSE(d.note.empty());
    notes.insert(d.note);
  }
  EXPECT_EQ(notes.size(), 3u);  // size, time (seconds or nanoseconds alike), content
}

TEST(DecideResumeNotesTest, SizeChangeIsReportedBeforeTimeAndContent) {
  std::optional<DecodedJournal> j = JournalFor(Jnl::kMatch);
  j->header.source.size += 1;
  j->header.source.mtime_sec += 1;
  j->header.source.fingerprint += 1;
  ResumeDecision d =
      DecideResume(Source(), TargetFor(Final::kAbsent, true), j, RulesOf(kAuto, false));
  EXPECT_TRUE(NoteMatches(d.note, Note::kSize)) << d.note;
  j->header.source.size -= 1;
  d = DecideResume(Source(), TargetFor(Final::kAbsent, true), j, RulesOf(kAuto, false));
  EXPECT_TRUE(NoteMatches(d.note, Note::kModified)) << d.note;
}

TEST(DecideResumeRulesTest, OnlyRegularFilesResumeOrSkip) {
  for (FileKind kind : {FileKind::kDirectory, FileKind::kSymlink, FileKind::kStream}) {
    SCOPED_TRACE(static_cast<int>(kind));
    FileEntry e = Source();
    e.kind = kind;
    // What would resume a regular file.
    ResumeDecision d = DecideResume(e, TargetFor(Final::kAbsent, true), JournalFor(Jnl::kMatch),
                                    RulesOf(kAuto, false));
    EXPECT_EQ(d.action, ResumeAction::kCopy);
    EXPECT_TRUE(d.discard);
    EXPECT_TRUE(d.note.empty());
    // What would skip one.
    d = DecideResume(e, TargetFor(Final::kNewer, false), std::nullopt, RulesOf(kAuto, false));
    EXPECT_EQ(d.action, ResumeAction::kCopy);
    EXPECT_FALSE(d.discard);
  }
}

TEST(DecideResumeRulesTest, TwoEmptyFilesAreTheSameWhateverTheirTimes) {
  FileEntry empty = Source();
  empty.size = 0;
  TargetState there;
  there.final_is_file = true;
  there.final_mtime_sec = kSec + 100;  // a copy made without -p
  EXPECT_EQ(DecideResume(empty, there, std::nullopt, RulesOf(kAuto, false)).action,
            ResumeAction::kSkip);
  EXPECT_EQ(DecideResume(empty, there, std::nullopt, RulesOf(kAuto, false, kDelta)).action,
            ResumeAction::kSkip);
  // -e reports the hashes of both ends, so it still compares; -f replaces.
  EXPECT_EQ(DecideResume(empty, there, std::nullopt, RulesOf(kAuto, false, kQuick, true)).action,
            ResumeAction::kCompare);
  EXPECT_EQ(DecideResume(empty, there, std::nullopt, RulesOf(kAuto, true)).action,
            ResumeAction::kCopy);
  // A target with bytes in it is not the same as an empty source.
  there.final_size = 1;
  EXPECT_EQ(DecideResume(empty, there, std::nullopt, RulesOf(kAuto, false)).action,
            ResumeAction::kCompare);
}

TEST(DecideResumeRulesTest, IdentityOfCarriesEveryField) {
  SourceIdentity id = IdentityOf(Source());
  EXPECT_EQ(id.size, kSize);
  EXPECT_EQ(id.mtime_sec, kSec);
  EXPECT_EQ(id.mtime_nsec, kNsec);
  EXPECT_EQ(id.fingerprint, 0xABCDEF0123456789ull);
}

/// Over every combination: what must hold whatever the details.
TEST(DecideResumeRulesTest, InvariantsOverEveryCombination) {
  int resumed = 0, skipped = 0, compared = 0;
  for (ResumeMode mode : {kAuto, kRequire, kOff}) {
    for (bool force : {false, true}) {
      for (ExistingRule existing : {kQuick, kDelta, kOmit, kSizeOnly}) {
        for (bool verify : {false, true}) {
          for (Final final :
               {Final::kAbsent, Final::kSameTime, Final::kNewer, Final::kNewerNsec, Final::kOlder,
                Final::kOlderNsec, Final::kOtherSize, Final::kOtherSizeSame}) {
            for (bool partial : {false, true}) {
              for (Jnl j : {Jnl::kNone, Jnl::kMatch, Jnl::kSize, Jnl::kSec, Jnl::kNsec,
                            Jnl::kFingerprint, Jnl::kBlockSize}) {
                std::optional<DecodedJournal> journal = JournalFor(j);
                ResumeDecision d = DecideResume(Source(), TargetFor(final, partial), journal,
                                                RulesOf(mode, force, existing, verify));
                SCOPED_TRACE(testing::Message()
                             << "mode " << int(mode) << " force " << force << " existing "
                             << int(existing) << " verify " << verify << " final " << int(final)
                             << " partial " << partial << " journal " << int(j));
                bool leftovers = partial || journal.has_value();
                bool same_source = j == Jnl::kMatch || j == Jnl::kBlockSize;
                if (d.action == ResumeAction::kResume) {
                  ++resumed;
                  EXPECT_NE(mode, kOff);
                  EXPECT_TRUE(partial);
                  EXPECT_TRUE(same_source);
                  EXPECT_FALSE(d.discard);  // never delete what is being resumed
                }
                if (d.action == ResumeAction::kSkip) {
                  ++skipped;
                  EXPECT_NE(mode, kOff);
                  EXPECT_FALSE(force);
                  EXPECT_NE(final, Final::kAbsent);
                  // Skipped on size and time alone only when nothing asked for more.
                  if (existing == kQuick) {
                    EXPECT_FALSE(verify);
                    EXPECT_EQ(final, Final::kSameTime);
                  }
                  EXPECT_NE(existing, kDelta);
                }
                if (d.action == ResumeAction::kCompare) {
                  ++compared;
                  EXPECT_NE(mode, kOff);
                  EXPECT_FALSE(force);  // -f replaces whole
                  EXPECT_NE(final, Final::kAbsent);
                }
                // A file there is never replaced whole unless -f, --no-resume or
                // a resume says so.
                if (final != Final::kAbsent && d.action == ResumeAction::kCopy) {
                  EXPECT_TRUE(force || mode == kOff);
                }
                // Leftovers that are not resumed are always cleaned up, and
                // nothing is deleted that is not there.
                EXPECT_EQ(d.discard, leftovers && d.action != ResumeAction::kResume);
                // A note only explains a partial copy that is given up.
                if (!d.note.empty()) {
                  EXPECT_TRUE(d.action == ResumeAction::kCopy ||
                              d.action == ResumeAction::kCompare);
                  EXPECT_TRUE(partial);
                  EXPECT_FALSE(same_source);
                }
                // Resuming wins whenever it is possible.
                if (mode != kOff && partial && same_source) {
                  EXPECT_TRUE(d.action == ResumeAction::kResume || d.action == ResumeAction::kSkip);
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_GT(resumed, 0);
  EXPECT_GT(skipped, 0);
  EXPECT_GT(compared, 0);
}

TEST(ComparePieceForTest, SmallestPieceWhoseHashesFit) {
  constexpr std::uint32_t kBlock = 1u << 20;
  constexpr std::size_t kRoom = kMaxBlockHashes;
  // 100 MiB in 4 KiB pieces is 25,600 hashes: one changed 4 KiB block costs 4 KiB.
  EXPECT_EQ(ComparePieceFor(100u << 20, kBlock, kRoom), 4096u);
  EXPECT_EQ(ComparePieceFor(1, kBlock, kRoom), 4096u);
  // 1 GiB would take 2^18 hashes at 4 KiB: 32 KiB pieces keep it at 2^15.
  EXPECT_EQ(ComparePieceFor(1ull << 30, kBlock, kRoom), 32u << 10);
  EXPECT_EQ(ComparePieceFor((1ull << 30) + 1, kBlock, kRoom), 64u << 10);
  // Past 2^15 blocks, whole blocks, as many as the list has room for.
  EXPECT_EQ(ComparePieceFor(100ull << 30, kBlock, kRoom), kBlock);
}

TEST(ComparePieceForTest, PiecesDivideTheBlockAndFitTheRoomLeft) {
  // A block that 8 KiB does not divide: 4 KiB pieces or whole blocks.
  constexpr std::uint32_t kOdd = 4096 * 3;
  EXPECT_EQ(ComparePieceFor(4096 * 30, kOdd, kMaxBlockHashes), 4096u);
  EXPECT_EQ(ComparePieceFor(4096ull * 3 * 40000, kOdd, kMaxBlockHashes), kOdd);
  // The room the rest of the run left: bigger pieces, then blocks, then none.
  EXPECT_EQ(ComparePieceFor(1u << 20, 1u << 20, 16), 64u << 10);
  EXPECT_EQ(ComparePieceFor(4u << 20, 1u << 20, 4), 1u << 20);
  EXPECT_EQ(ComparePieceFor(4u << 20, 1u << 20, 3), 0u);
  EXPECT_EQ(ComparePieceFor(0, 1u << 20, 0), 4096u);
}

}  // namespace
}  // namespace braid
