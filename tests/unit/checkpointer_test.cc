#include "resume/checkpointer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "resume/resume_journal.h"
#include "security/crypto/payload_checksum.h"

namespace braid {
namespace {

/// A RangeSet of [begin, end): what Track is told a journal already vouches for.
RangeSet Kept(std::uint64_t begin, std::uint64_t end) {
  RangeSet r;
  r.Add(begin, end);
  return r;
}

using Bytes = std::vector<std::uint8_t>;

/// What the fake file system throws when told to fail (a crash, or an IO error).
struct InjectedFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// How the operation chosen to fail fails.
enum class FailMode {
  kBefore,  ///< nothing happens, then it throws (an append leaves the journal as it was)
  kAfter,   ///< the operation completes, then it throws
  kTear,    ///< an append keeps only a prefix of its bytes, then throws (a sync: as kBefore)
};

/// A file system that knows which bytes would survive a crash. Per file: what
/// was written (volatile until synced), what is durable, and the journal.
/// Appends to the journal are durable when they return; a torn one keeps a prefix.
class FakeFs : public CheckpointIo {
 public:
  struct File {
    Bytes written;  ///< what a reader of the open file sees
    Bytes durable;  ///< what is left after a crash
    Bytes journal;
    bool journal_exists = false;
    std::vector<bool> creates;  ///< `create` of every append, in order
    int syncs = 0;
  };

  /// Makes operation number `op` (0-based, syncs and appends counted together) fail.
  void FailAt(int op, FailMode mode, std::ptrdiff_t tear = 0) {
    fail_at_ = op;
    mode_ = mode;
    tear_ = tear;
  }
  void Heal() { fail_at_.reset(); }
  /// Runs after a sync has made the data durable (outside the lock).
  void AfterSync(std::function<void(std::uint32_t)> hook) { after_sync_ = std::move(hook); }

  void Write(std::uint32_t id, std::uint64_t offset, const Bytes& data) {
    std::lock_guard lock(mutex_);
    File& f = files_[id];
    std::size_t end = static_cast<std::size_t>(offset) + data.size();
    if (f.written.size() < end) f.written.resize(end);
    std::copy(data.begin(), data.end(), f.written.begin() + static_cast<std::ptrdiff_t>(offset));
  }
  /// State left by an earlier run: durable data and a journal.
  void Preload(std::uint32_t id, const Bytes& data, const Bytes& journal) {
    std::lock_guard lock(mutex_);
    File& f = files_[id];
    f.written = f.durable = data;
    f.journal = journal;
    f.journal_exists = true;
  }

  void SyncData(std::uint32_t id) override {
    {
      std::lock_guard lock(mutex_);
      int op = ops_++;
      log_.push_back("sync " + std::to_string(id));
      bool fail = fail_at_ == op;
      crashed_ = crashed_ || fail;
      if (fail && mode_ != FailMode::kAfter) throw InjectedFailure("sync failed");
      File& f = files_[id];
      f.durable = f.written;
      ++f.syncs;
      if (fail) throw InjectedFailure("crash after sync");
    }
    if (after_sync_) after_sync_(id);
  }

  void AppendJournal(std::uint32_t id, bool create, std::span<const std::uint8_t> bytes) override {
    std::lock_guard lock(mutex_);
    int op = ops_++;
    log_.push_back("append " + std::to_string(id));
    File& f = files_[id];
    f.creates.push_back(create);
    if (!create && !f.journal_exists) ++misuses_;  // appending to a journal never created
    bool fail = fail_at_ == op;
    crashed_ = crashed_ || fail;
    if (fail && mode_ == FailMode::kBefore) throw InjectedFailure("append failed");
    std::size_t keep = bytes.size();
    if (fail && mode_ == FailMode::kTear) {
      std::ptrdiff_t want = tear_ >= 0 ? tear_ : static_cast<std::ptrdiff_t>(bytes.size()) + tear_;
      keep = std::min(bytes.size(), static_cast<std::size_t>(std::max<std::ptrdiff_t>(0, want)));
    }
    if (create) {
      f.journal.clear();
      f.journal_exists = true;
    }
    f.journal.insert(f.journal.end(), bytes.begin(),
                     bytes.begin() + static_cast<std::ptrdiff_t>(keep));
    // The invariant at every moment: the journal vouches only for durable data.
    if (!UnsafeRecords(f).empty()) ++unsafe_appends_;
    if (fail) throw InjectedFailure("crash during append");
  }

  /// Records of the file's journal that do not describe its data: a synced
  /// one its durable data, an unsynced one what a reader of the file sees.
  static std::vector<std::string> UnsafeRecords(const File& f) {
    std::vector<std::string> out;
    std::optional<DecodedJournal> d = DecodeJournal(f.journal);
    if (!d) return out;
    for (const JournalRecord& r : d->records) {
      const Bytes& data = r.synced ? f.durable : f.written;
      if (!Describes(data, r)) {
        out.push_back(std::string(r.synced ? "synced" : "unsynced") + " record at " +
                      std::to_string(r.offset) + " does not describe the data");
      }
    }
    return out;
  }
  static bool Describes(const Bytes& data, const JournalRecord& r) {
    if (r.offset + r.length > data.size()) return false;
    auto slice = std::span(data).subspan(static_cast<std::size_t>(r.offset), r.length);
    return PayloadChecksum(slice) == r.checksum;
  }

  File& file(std::uint32_t id) { return files_[id]; }
  bool has(std::uint32_t id) const { return files_.count(id) != 0; }
  int ops() const { return ops_; }
  const std::vector<std::string>& log() const { return log_; }
  int misuses() const { return misuses_; }
  int unsafe_appends() const { return unsafe_appends_; }
  /// An injected failure happened: the process it models is dead.
  bool crashed() const { return crashed_; }

 private:
  std::mutex mutex_;
  std::map<std::uint32_t, File> files_;
  int ops_ = 0;
  std::vector<std::string> log_;
  std::optional<int> fail_at_;
  FailMode mode_ = FailMode::kBefore;
  std::ptrdiff_t tear_ = 0;
  std::function<void(std::uint32_t)> after_sync_;
  int misuses_ = 0;
  int unsafe_appends_ = 0;
  bool crashed_ = false;
};

constexpr std::uint32_t kBs = 64;

/// Fake block contents: never all zero, so a block that is not durable (zeros,
/// or nothing) never matches its checksum.
Bytes Content(std::uint32_t file, std::uint64_t offset, std::size_t length) {
  std::mt19937 rng(static_cast<std::uint32_t>(file * 1000003u + offset * 7919u + 1));
  Bytes b(length);
  for (auto& byte : b) byte = static_cast<std::uint8_t>(rng() % 255 + 1);
  return b;
}

JournalRecord RecordOf(std::uint32_t file, std::uint64_t offset, std::uint32_t length) {
  return {offset, length, PayloadChecksum(Content(file, offset, length))};
}

JournalHeader HeaderFor(std::uint32_t id, std::uint64_t size) {
  JournalHeader h;
  h.source = {size, 1700000000 + id, id * 1000u, 0xF00D0000ull + id};
  h.block_size = kBs;
  return h;
}

Bytes Journal(const JournalHeader& h, const std::vector<JournalRecord>& records) {
  Bytes b = EncodeJournalHeader(h);
  Bytes r = EncodeJournalRecords(h, records);
  b.insert(b.end(), r.begin(), r.end());
  return b;
}

std::vector<JournalRecord> Records(const Bytes& journal) {
  std::optional<DecodedJournal> d = DecodeJournal(journal);
  if (!d) {
    ADD_FAILURE() << "journal of " << journal.size() << " bytes does not decode";
    return {};
  }
  EXPECT_FALSE(d->torn);
  return d->records;
}

/// Writes block `block` of `file` to the fake disk and tells the checkpointer.
template <typename Journaler>
JournalRecord WriteBlock(FakeFs& fs, Journaler& cp, std::uint32_t file, std::uint64_t size,
                         std::uint64_t block) {
  std::uint64_t offset = block * kBs;
  auto length = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBs, size - offset));
  fs.Write(file, offset, Content(file, offset, length));
  JournalRecord r = RecordOf(file, offset, length);
  cp.Written(file, r);
  return r;
}

// ---------------------------------------------------------------- crash points

struct FileSpec {
  std::uint32_t id;
  std::uint64_t size;
  std::vector<std::uint64_t> kept_blocks;  ///< non-empty: resumed, with a journal of these
};

struct ScriptOp {
  enum Kind { kWrite, kRun, kForget } kind;
  std::uint32_t file = 0;
  std::uint64_t block = 0;
};

const std::vector<FileSpec>& Specs() {
  static const std::vector<FileSpec> specs = {
      {1, 10 * kBs, {}},
      {2, 8 * kBs, {0, 1, 6}},  // resumed: an earlier run journaled these
      {3, 5 * kBs + 17, {}},    // a short last block
  };
  return specs;
}

std::uint64_t SizeOf(std::uint32_t id) {
  for (const FileSpec& s : Specs()) {
    if (s.id == id) return s.size;
  }
  ADD_FAILURE() << "no file " << id;
  return 0;
}

std::vector<ScriptOp> Script() {
  using K = ScriptOp::Kind;
  return {
      {K::kWrite, 1, 0}, {K::kWrite, 1, 1}, {K::kWrite, 3, 0}, {K::kRun},
      {K::kWrite, 2, 2}, {K::kWrite, 1, 3}, {K::kWrite, 1, 2}, {K::kWrite, 3, 1},
      {K::kWrite, 2, 5}, {K::kRun},         {K::kWrite, 3, 2}, {K::kWrite, 3, 5},
      {K::kRun},         {K::kForget, 1},   {K::kWrite, 1, 4},  // ignored: the file was forgotten
      {K::kWrite, 2, 3}, {K::kWrite, 3, 3}, {K::kWrite, 3, 4}, {K::kRun},
      {K::kRun},  // nothing pending: no IO
      {K::kWrite, 2, 4}, {K::kWrite, 2, 7}, {K::kRun},
  };
}

struct Outcome {
  bool crashed = false;
  /// Per file, records a completed run journaled: a recovery must find them all.
  std::map<std::uint32_t, std::vector<JournalRecord>> confirmed;
  /// Per file, blocks whose Written returned: what a killed sink has written.
  std::map<std::uint32_t, std::vector<JournalRecord>> written;
  std::vector<std::size_t> run_results;
};

template <typename Journaler>
Outcome RunScript(FakeFs& fs, Journaler& cp) {
  Outcome out;
  for (const FileSpec& s : Specs()) {
    JournalHeader h = HeaderFor(s.id, s.size);
    if (s.kept_blocks.empty()) {
      cp.Track(s.id, h, false, {});
      continue;
    }
    Bytes data(static_cast<std::size_t>(s.size));
    std::vector<JournalRecord> kept;
    RangeSet kept_ranges;
    for (std::uint64_t b : s.kept_blocks) {
      auto length = static_cast<std::uint32_t>(std::min<std::uint64_t>(kBs, s.size - b * kBs));
      Bytes c = Content(s.id, b * kBs, length);
      std::copy(c.begin(), c.end(), data.begin() + static_cast<std::ptrdiff_t>(b * kBs));
      kept.push_back(RecordOf(s.id, b * kBs, length));
      kept_ranges.Add(b * kBs, b * kBs + length);
    }
    fs.Preload(s.id, data, Journal(h, kept));
    cp.Track(s.id, h, true, kept_ranges);
    out.confirmed[s.id] = kept;
  }
  std::map<std::uint32_t, std::vector<JournalRecord>> pending;
  std::set<std::uint32_t> forgotten;
  for (const ScriptOp& op : Script()) {
    switch (op.kind) {
      case ScriptOp::kWrite: {
        JournalRecord r = WriteBlock(fs, cp, op.file, SizeOf(op.file), op.block);
        if (fs.crashed()) {  // an unsynced record's append
          out.crashed = true;
          return out;
        }
        if (forgotten.count(op.file) == 0) {
          pending[op.file].push_back(r);
          out.written[op.file].push_back(r);
        }
        break;
      }
      case ScriptOp::kForget:
        cp.Forget(op.file);
        forgotten.insert(op.file);
        pending.erase(op.file);
        out.written.erase(op.file);
        break;
      case ScriptOp::kRun:
        try {
          out.run_results.push_back(cp.Run());
        } catch (const InjectedFailure&) {
          out.crashed = true;
          return out;
        }
        for (auto& [id, recs] : pending) {
          auto& c = out.confirmed[id];
          c.insert(c.end(), recs.begin(), recs.end());
        }
        pending.clear();
        break;
    }
  }
  return out;
}

struct Recovery {
  std::vector<std::string> unsafe;  ///< records for data that is not durable
  std::vector<std::string> lost;    ///< records a completed run journaled, missing now
};

/// What a re-run would find: each journal decoded against the durable data.
Recovery Recover(FakeFs& fs, const Outcome& outcome) {
  Recovery out;
  for (const FileSpec& s : Specs()) {
    const std::string name = "file " + std::to_string(s.id) + ": ";
    auto confirmed_it = outcome.confirmed.find(s.id);
    std::vector<JournalRecord> confirmed = confirmed_it == outcome.confirmed.end()
                                               ? std::vector<JournalRecord>{}
                                               : confirmed_it->second;
    if (!fs.has(s.id) || !fs.file(s.id).journal_exists) {
      if (!confirmed.empty()) out.lost.push_back(name + "no journal");
      continue;
    }
    FakeFs::File& f = fs.file(s.id);
    std::optional<DecodedJournal> d = DecodeJournal(f.journal);
    if (!d) {
      // Only a torn first append can leave a journal that is not one.
      if (f.journal.size() >= kJournalHeaderSize) out.unsafe.push_back(name + "bad header");
      if (!confirmed.empty()) out.lost.push_back(name + "journal unreadable");
      continue;
    }
    if (!(d->header.source == HeaderFor(s.id, s.size).source) || d->header.block_size != kBs) {
      out.unsafe.push_back(name + "journal of another source");
    }
    for (const std::string& u : FakeFs::UnsafeRecords(f)) out.unsafe.push_back(name + u);
    for (const JournalRecord& c : confirmed) {
      if (std::find(d->records.begin(), d->records.end(), c) == d->records.end()) {
        out.lost.push_back(name + "lost the record at " + std::to_string(c.offset));
      }
    }
  }
  return out;
}

/// What a re-run finds after the sink was killed and its host stayed up (the
/// written data is still there): blocks written but in no record of any kind.
std::vector<std::string> LostToAKill(FakeFs& fs, const Outcome& outcome) {
  std::vector<std::string> lost;
  for (const auto& [id, blocks] : outcome.written) {
    const std::string name = "file " + std::to_string(id) + ": ";
    std::optional<DecodedJournal> d;
    if (fs.has(id)) d = DecodeJournal(fs.file(id).journal);
    for (const JournalRecord& w : blocks) {
      bool found = d && std::any_of(d->records.begin(), d->records.end(), [&](const auto& r) {
                     return r.offset == w.offset && r.length == w.length &&
                            FakeFs::Describes(fs.file(id).written, r);
                   });
      if (!found) lost.push_back(name + "block at " + std::to_string(w.offset));
    }
  }
  return lost;
}

/// How many file-system operations the script makes when nothing fails, with
/// the journaler `make(fs)` builds: the crash-point loops try each of them.
template <typename Make>
int CleanRunOps(Make make) {
  FakeFs fs;
  auto journaler = make(fs);
  EXPECT_FALSE(RunScript(fs, *journaler).crashed);
  return fs.ops();
}

struct CrashCase {
  FailMode mode;
  std::ptrdiff_t tear;
};

std::vector<CrashCase> CrashCases() {
  std::vector<CrashCase> cases = {{FailMode::kBefore, 0}, {FailMode::kAfter, 0}};
  for (std::ptrdiff_t tear : {0, 1, 8, 31, 32, 33, 55, 56, 57, 88, 89, -1}) {
    cases.push_back({FailMode::kTear, tear});
  }
  return cases;
}

TEST(CheckpointerTest, ScriptWithoutFailuresJournalsEverything) {
  FakeFs fs;
  Checkpointer cp(fs);
  Outcome out = RunScript(fs, cp);
  ASSERT_FALSE(out.crashed);
  EXPECT_EQ(out.run_results, (std::vector<std::size_t>{3, 5, 2, 3, 0, 2}));
  EXPECT_EQ(cp.pending(), 0u);
  EXPECT_EQ(fs.misuses(), 0);
  EXPECT_EQ(fs.unsafe_appends(), 0);
  // Two syncs and two appends per file and run with something pending.
  EXPECT_EQ(fs.ops(), 2 * (2 + 3 + 1 + 2 + 1));
  std::vector<JournalRecord> one = {RecordOf(1, 0, kBs), RecordOf(1, kBs, kBs),
                                    RecordOf(1, 3 * kBs, kBs), RecordOf(1, 2 * kBs, kBs)};
  EXPECT_EQ(Records(fs.file(1).journal), one);
  EXPECT_EQ(fs.file(1).creates, (std::vector<bool>{true, false}));
  std::vector<JournalRecord> two = {RecordOf(2, 0, kBs),       RecordOf(2, kBs, kBs),
                                    RecordOf(2, 6 * kBs, kBs), RecordOf(2, 2 * kBs, kBs),
                                    RecordOf(2, 5 * kBs, kBs), RecordOf(2, 3 * kBs, kBs),
                                    RecordOf(2, 4 * kBs, kBs), RecordOf(2, 7 * kBs, kBs)};
  EXPECT_EQ(Records(fs.file(2).journal), two);
  EXPECT_EQ(fs.file(2).creates, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(cp.journaled_bytes(2), 8u * kBs);
  EXPECT_EQ(Records(fs.file(3).journal).size(), 6u);
  EXPECT_EQ(cp.journaled_bytes(3), 5u * kBs + 17);
  EXPECT_EQ(fs.file(3).creates, (std::vector<bool>{true, false, false, false}));
  // Forgotten: no longer journaled or counted.
  EXPECT_EQ(cp.journaled_bytes(1), 0u);
  EXPECT_FALSE(cp.has_journal(1));
  Recovery r = Recover(fs, out);
  EXPECT_TRUE(r.unsafe.empty());
  EXPECT_TRUE(r.lost.empty());
}

TEST(CheckpointerTest, EveryCrashPointLeavesOnlyDurableRecords) {
  const int total = CleanRunOps([](FakeFs& fs) { return std::make_unique<Checkpointer>(fs); });
  ASSERT_GT(total, 10);
  int crashes = 0;
  for (int k = 0; k < total; ++k) {
    for (const CrashCase& c : CrashCases()) {
      SCOPED_TRACE("crash at operation " + std::to_string(k) + " mode " +
                   std::to_string(static_cast<int>(c.mode)) + " tear " + std::to_string(c.tear));
      FakeFs fs;
      fs.FailAt(k, c.mode, c.tear);
      Checkpointer cp(fs);
      Outcome out = RunScript(fs, cp);
      ASSERT_TRUE(out.crashed);
      ++crashes;
      EXPECT_EQ(fs.ops(), k + 1);  // nothing after the crash
      EXPECT_EQ(fs.misuses(), 0);
      EXPECT_EQ(fs.unsafe_appends(), 0);
      Recovery r = Recover(fs, out);
      for (const std::string& u : r.unsafe) ADD_FAILURE() << "unsafe: " << u;
      for (const std::string& l : r.lost) ADD_FAILURE() << "lost: " << l;
    }
  }
  EXPECT_EQ(crashes, total * static_cast<int>(CrashCases().size()));
}

/// Journals before it syncs: the order the checkpointer exists to avoid.
class AppendFirstJournaler {
 public:
  explicit AppendFirstJournaler(CheckpointIo& io) : io_(io) {}
  void Track(std::uint32_t id, const JournalHeader& h, bool exists, const RangeSet&) {
    files_[id] = {h, exists, {}};
  }
  void Written(std::uint32_t id, const JournalRecord& r) {
    if (files_.count(id) != 0) files_[id].pending.push_back(r);
  }
  void Forget(std::uint32_t id) { files_.erase(id); }
  std::size_t Run() {
    std::size_t n = 0;
    for (auto& [id, t] : files_) {
      if (t.pending.empty()) continue;
      Bytes b = t.exists ? Bytes{} : EncodeJournalHeader(t.header);
      Bytes r = EncodeJournalRecords(t.header, t.pending);
      b.insert(b.end(), r.begin(), r.end());
      io_.AppendJournal(id, !t.exists, b);
      t.exists = true;
      io_.SyncData(id);
      n += t.pending.size();
      t.pending.clear();
    }
    return n;
  }

 private:
  struct T {
    JournalHeader header;
    bool exists = false;
    std::vector<JournalRecord> pending;
  };
  CheckpointIo& io_;
  std::map<std::uint32_t, T> files_;
};

TEST(CheckpointerTest, CrashHarnessCatchesJournalingBeforeSyncing) {
  // The crash-point test above is only as good as its recovery check: the
  // same harness must catch a journaler that appends before it syncs.
  const int total =
      CleanRunOps([](FakeFs& fs) { return std::make_unique<AppendFirstJournaler>(fs); });
  int caught = 0;
  for (int k = 0; k < total; ++k) {
    FakeFs fs;
    fs.FailAt(k, FailMode::kBefore);
    AppendFirstJournaler j(fs);
    Outcome out = RunScript(fs, j);
    if (!Recover(fs, out).unsafe.empty()) ++caught;
  }
  // Every sync that fails leaves the records of the append before it unsafe.
  EXPECT_EQ(caught, total / 2);
}

// ------------------------------------------------------------ unsynced records

JournalRecord Unsynced(JournalRecord r) {
  r.synced = false;
  return r;
}

TEST(CheckpointerTest, UnsyncedRecordsFollowEveryWrite) {
  FakeFs fs;
  Checkpointer cp(fs, /*record_unsynced=*/true);
  Outcome out = RunScript(fs, cp);
  ASSERT_FALSE(out.crashed);
  EXPECT_EQ(out.run_results, (std::vector<std::size_t>{3, 5, 2, 3, 0, 2}));
  EXPECT_EQ(fs.misuses(), 0);
  EXPECT_EQ(fs.unsafe_appends(), 0);
  // File 1, forgotten after two runs: each block unsynced when written, then
  // synced by the run after it; the first append created the journal.
  auto r = [](std::uint64_t block) { return RecordOf(1, block * kBs, kBs); };
  std::vector<JournalRecord> one = {Unsynced(r(0)), Unsynced(r(1)), r(0), r(1),
                                    Unsynced(r(3)), Unsynced(r(2)), r(3), r(2)};
  EXPECT_EQ(Records(fs.file(1).journal), one);
  EXPECT_EQ(std::count(fs.file(1).creates.begin(), fs.file(1).creates.end(), true), 1);
  EXPECT_TRUE(fs.file(1).creates.front());
  // A resumed file appends to its journal from the first record on.
  EXPECT_EQ(std::count(fs.file(2).creates.begin(), fs.file(2).creates.end(), true), 0);
  // What a re-run keeps after a failure counts synced records only.
  EXPECT_EQ(cp.journaled_bytes(2), 8u * kBs);
  EXPECT_EQ(cp.journaled_bytes(3), 5u * kBs + 17);
  Recovery rec = Recover(fs, out);
  EXPECT_TRUE(rec.unsafe.empty());
  EXPECT_TRUE(rec.lost.empty());
}

TEST(CheckpointerTest, EveryCrashPointWithUnsyncedRecordsLosesNothingWritten) {
  const int total =
      CleanRunOps([](FakeFs& fs) { return std::make_unique<Checkpointer>(fs, true); });
  ASSERT_GT(total, 30);
  for (int k = 0; k < total; ++k) {
    for (const CrashCase& c : CrashCases()) {
      SCOPED_TRACE("crash at operation " + std::to_string(k) + " mode " +
                   std::to_string(static_cast<int>(c.mode)) + " tear " + std::to_string(c.tear));
      FakeFs fs;
      fs.FailAt(k, c.mode, c.tear);
      Checkpointer cp(fs, true);
      Outcome out = RunScript(fs, cp);
      ASSERT_TRUE(out.crashed);
      EXPECT_EQ(fs.ops(), k + 1);
      EXPECT_EQ(fs.misuses(), 0);
      EXPECT_EQ(fs.unsafe_appends(), 0);
      // A power cut: synced records still vouch only for durable data.
      Recovery r = Recover(fs, out);
      for (const std::string& u : r.unsafe) ADD_FAILURE() << "unsafe: " << u;
      for (const std::string& l : r.lost) ADD_FAILURE() << "lost: " << l;
      // A killed sink: every block it had written is in a record.
      for (const std::string& l : LostToAKill(fs, out)) ADD_FAILURE() << "lost to a kill: " << l;
    }
  }
}

TEST(CheckpointerTest, KillHarnessCatchesCheckpointsAlone) {
  // Without unsynced records a kill loses the blocks since the last run: the
  // kill check above must see that, or it proves nothing.
  const int total = CleanRunOps([](FakeFs& fs) { return std::make_unique<Checkpointer>(fs); });
  int caught = 0;
  for (int k = 0; k < total; ++k) {
    FakeFs fs;
    fs.FailAt(k, FailMode::kBefore);
    Checkpointer cp(fs);
    if (!LostToAKill(fs, RunScript(fs, cp)).empty()) ++caught;
  }
  EXPECT_EQ(caught, total);
}

TEST(CheckpointerTest, FailedUnsyncedAppendIsDroppedAndTheRunStillJournals) {
  FakeFs fs;
  Checkpointer cp(fs, true);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  fs.FailAt(0, FailMode::kBefore);
  EXPECT_NO_THROW(WriteBlock(fs, cp, 1, 4 * kBs, 2));
  fs.Heal();
  EXPECT_EQ(cp.pending(), 1u);
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(fs.file(1).journal, Journal(HeaderFor(1, 4 * kBs), {RecordOf(1, 2 * kBs, kBs)}));
  // The failed append was to create the journal: the run creates it.
  EXPECT_EQ(fs.file(1).creates, (std::vector<bool>{true, true}));
}

// ---------------------------------------------------------------- behaviour

TEST(CheckpointerTest, SyncsBeforeEachAppend) {
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(7, HeaderFor(7, 4 * kBs), false, {});
  cp.Track(9, HeaderFor(9, 4 * kBs), false, {});
  WriteBlock(fs, cp, 9, 4 * kBs, 1);
  WriteBlock(fs, cp, 7, 4 * kBs, 0);
  WriteBlock(fs, cp, 7, 4 * kBs, 3);
  EXPECT_EQ(cp.pending(), 3u);
  EXPECT_EQ(cp.Run(), 3u);
  EXPECT_EQ(cp.pending(), 0u);
  EXPECT_EQ(fs.log(), (std::vector<std::string>{"sync 7", "append 7", "sync 9", "append 9"}));
  EXPECT_EQ(fs.file(7).syncs, 1);
  EXPECT_EQ(fs.file(7).journal,
            Journal(HeaderFor(7, 4 * kBs), {RecordOf(7, 0, kBs), RecordOf(7, 3 * kBs, kBs)}));
  EXPECT_EQ(fs.file(9).journal, Journal(HeaderFor(9, 4 * kBs), {RecordOf(9, kBs, kBs)}));
}

TEST(CheckpointerTest, WrittenReportsTheBytesWaitingForACheckpoint) {
  // The sink runs a checkpoint early once enough is waiting, so a crash at a
  // high rate costs a bounded amount of data, not a quarter second's worth.
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(1, HeaderFor(1, 8 * kBs), false, {});
  EXPECT_EQ(cp.Written(2, RecordOf(2, 0, kBs)), 0u);  // untracked: nothing waits
  EXPECT_EQ(cp.Written(1, RecordOf(1, 0, kBs)), std::uint64_t{kBs});
  EXPECT_EQ(cp.Written(1, RecordOf(1, kBs, 100)), std::uint64_t{kBs} + 100);
  cp.Run();
  EXPECT_EQ(cp.Written(1, RecordOf(1, 2 * kBs, kBs)), std::uint64_t{kBs});
}

TEST(CheckpointerTest, RunWithNothingPendingDoesNoIo) {
  FakeFs fs;
  Checkpointer cp(fs);
  EXPECT_EQ(cp.Run(), 0u);
  cp.Track(1, HeaderFor(1, kBs), false, {});
  EXPECT_EQ(cp.Run(), 0u);
  WriteBlock(fs, cp, 1, kBs, 0);
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(cp.Run(), 0u);
  EXPECT_EQ(fs.ops(), 2);
}

TEST(CheckpointerTest, WrittenBeforeTrackIsIgnored) {
  FakeFs fs;
  Checkpointer cp(fs);
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  EXPECT_EQ(cp.pending(), 0u);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  EXPECT_EQ(cp.pending(), 0u);
  EXPECT_EQ(cp.Run(), 0u);
  EXPECT_EQ(fs.ops(), 0);
  EXPECT_FALSE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), 0u);
  // Blocks written after Track count.
  WriteBlock(fs, cp, 1, 4 * kBs, 1);
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(Records(fs.file(1).journal), (std::vector<JournalRecord>{RecordOf(1, kBs, kBs)}));
}

TEST(CheckpointerTest, UntrackedFilesAreNeverTouched) {
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  WriteBlock(fs, cp, 2, 4 * kBs, 0);  // a small file: never tracked
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(fs.log(), (std::vector<std::string>{"sync 1", "append 1"}));
  EXPECT_FALSE(cp.has_journal(2));
  EXPECT_EQ(cp.journaled_bytes(2), 0u);
}

TEST(CheckpointerTest, ForgetStopsJournaling) {
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_TRUE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), kBs);
  WriteBlock(fs, cp, 1, 4 * kBs, 1);  // pending when forgotten: dropped
  cp.Forget(1);
  EXPECT_EQ(cp.pending(), 0u);
  EXPECT_FALSE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), 0u);
  WriteBlock(fs, cp, 1, 4 * kBs, 2);
  EXPECT_EQ(cp.pending(), 0u);
  EXPECT_EQ(cp.Run(), 0u);
  EXPECT_EQ(fs.ops(), 2);
  EXPECT_EQ(Records(fs.file(1).journal).size(), 1u);
  cp.Forget(1);  // twice, or never tracked: harmless
  cp.Forget(42);
  EXPECT_EQ(cp.Run(), 0u);
}

TEST(CheckpointerTest, FailedSyncPutsTheBlocksBack) {
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  WriteBlock(fs, cp, 1, 4 * kBs, 1);
  fs.FailAt(0, FailMode::kBefore);
  EXPECT_THROW(cp.Run(), InjectedFailure);
  EXPECT_EQ(cp.pending(), 2u);
  EXPECT_FALSE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), 0u);
  EXPECT_FALSE(fs.file(1).journal_exists);
  fs.Heal();
  WriteBlock(fs, cp, 1, 4 * kBs, 2);
  EXPECT_EQ(cp.Run(), 3u);
  // The blocks put back come first, in the order they were written.
  EXPECT_EQ(Records(fs.file(1).journal),
            (std::vector<JournalRecord>{RecordOf(1, 0, kBs), RecordOf(1, kBs, kBs),
                                        RecordOf(1, 2 * kBs, kBs)}));
  EXPECT_EQ(fs.file(1).creates, (std::vector<bool>{true}));
  EXPECT_EQ(cp.journaled_bytes(1), 3u * kBs);
}

TEST(CheckpointerTest, FailedFirstAppendCreatesTheJournalAgain) {
  for (FailMode mode : {FailMode::kBefore, FailMode::kTear}) {
    SCOPED_TRACE(static_cast<int>(mode));
    FakeFs fs;
    Checkpointer cp(fs);
    cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
    WriteBlock(fs, cp, 1, 4 * kBs, 0);
    fs.FailAt(1, mode, 20);  // the append: a torn one keeps part of the header
    EXPECT_THROW(cp.Run(), InjectedFailure);
    EXPECT_FALSE(cp.has_journal(1));
    EXPECT_EQ(cp.journaled_bytes(1), 0u);
    EXPECT_EQ(cp.pending(), 1u);
    fs.Heal();
    EXPECT_EQ(cp.Run(), 1u);
    EXPECT_EQ(fs.file(1).creates, (std::vector<bool>{true, true}));
    EXPECT_EQ(fs.file(1).journal, Journal(HeaderFor(1, 4 * kBs), {RecordOf(1, 0, kBs)}));
    EXPECT_TRUE(cp.has_journal(1));
    WriteBlock(fs, cp, 1, 4 * kBs, 1);
    EXPECT_EQ(cp.Run(), 1u);
    EXPECT_EQ(fs.file(1).creates, (std::vector<bool>{true, true, false}));
    EXPECT_EQ(Records(fs.file(1).journal).size(), 2u);
    EXPECT_EQ(fs.misuses(), 0);
  }
}

TEST(CheckpointerTest, FailedLaterAppendAppendsAgainWithoutCreating) {
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  EXPECT_EQ(cp.Run(), 1u);
  WriteBlock(fs, cp, 1, 4 * kBs, 1);
  fs.FailAt(3, FailMode::kBefore);  // sync, append, sync, *append*
  EXPECT_THROW(cp.Run(), InjectedFailure);
  EXPECT_TRUE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), kBs);
  EXPECT_EQ(cp.pending(), 1u);
  fs.Heal();
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(fs.file(1).creates, (std::vector<bool>{true, false, false}));
  EXPECT_EQ(Records(fs.file(1).journal),
            (std::vector<JournalRecord>{RecordOf(1, 0, kBs), RecordOf(1, kBs, kBs)}));
  EXPECT_EQ(cp.journaled_bytes(1), 2u * kBs);
}

TEST(CheckpointerTest, FailureInTheMiddleOfARunKeepsWhatWasDone) {
  FakeFs fs;
  Checkpointer cp(fs);
  for (std::uint32_t id : {1u, 2u, 3u}) cp.Track(id, HeaderFor(id, 4 * kBs), false, {});
  for (std::uint32_t id : {1u, 2u, 3u}) WriteBlock(fs, cp, id, 4 * kBs, 0);
  fs.FailAt(2, FailMode::kBefore);  // the sync of file 2
  EXPECT_THROW(cp.Run(), InjectedFailure);
  EXPECT_TRUE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), kBs);
  EXPECT_FALSE(cp.has_journal(2));
  EXPECT_FALSE(cp.has_journal(3));
  EXPECT_EQ(cp.pending(), 2u);  // files 2 and 3, not file 1 again
  EXPECT_FALSE(fs.has(3) && fs.file(3).journal_exists);
  fs.Heal();
  EXPECT_EQ(cp.Run(), 2u);
  EXPECT_EQ(Records(fs.file(1).journal).size(), 1u);
  EXPECT_EQ(Records(fs.file(2).journal), (std::vector<JournalRecord>{RecordOf(2, 0, kBs)}));
  EXPECT_EQ(Records(fs.file(3).journal), (std::vector<JournalRecord>{RecordOf(3, 0, kBs)}));
  EXPECT_EQ(fs.file(1).creates, (std::vector<bool>{true}));
}

TEST(CheckpointerTest, ForgetAfterAFailedRunDropsThePutBackBlocks) {
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  fs.FailAt(0, FailMode::kBefore);
  EXPECT_THROW(cp.Run(), InjectedFailure);
  EXPECT_EQ(cp.pending(), 1u);
  cp.Forget(1);
  EXPECT_EQ(cp.pending(), 0u);
  fs.Heal();
  EXPECT_EQ(cp.Run(), 0u);
  EXPECT_EQ(fs.ops(), 1);
}

TEST(CheckpointerTest, JournaledBytesAndHasJournal) {
  FakeFs fs;
  Checkpointer cp(fs);
  EXPECT_FALSE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), 0u);
  // Without a journal on disk, kept bytes mean nothing.
  cp.Track(1, HeaderFor(1, 2 * kBs + 17), false, Kept(0, 999));
  EXPECT_FALSE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), 0u);
  WriteBlock(fs, cp, 1, 2 * kBs + 17, 2);  // 17 bytes
  WriteBlock(fs, cp, 1, 2 * kBs + 17, 0);
  EXPECT_EQ(cp.journaled_bytes(1), 0u);  // written is not journaled
  EXPECT_EQ(cp.Run(), 2u);
  EXPECT_TRUE(cp.has_journal(1));
  EXPECT_EQ(cp.journaled_bytes(1), kBs + 17u);

  fs.Preload(2, Bytes(4 * kBs), Journal(HeaderFor(2, 4 * kBs), {}));
  cp.Track(2, HeaderFor(2, 4 * kBs), true, Kept(0, 3 * kBs));
  EXPECT_TRUE(cp.has_journal(2));
  EXPECT_EQ(cp.journaled_bytes(2), 3u * kBs);
  WriteBlock(fs, cp, 2, 4 * kBs, 3);
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(cp.journaled_bytes(2), 4u * kBs);
  EXPECT_EQ(cp.journaled_bytes(1), kBs + 17u);  // unchanged by the other file
}

TEST(CheckpointerTest, TrackWithAnExistingJournalAppendsOnlyRecords) {
  FakeFs fs;
  Checkpointer cp(fs);
  const JournalHeader h = HeaderFor(5, 4 * kBs);
  Bytes data(4 * kBs);
  Bytes first = Content(5, 0, kBs);
  std::copy(first.begin(), first.end(), data.begin());
  const Bytes before = Journal(h, {RecordOf(5, 0, kBs)});
  fs.Preload(5, data, before);
  cp.Track(5, h, true, Kept(0, kBs));
  WriteBlock(fs, cp, 5, 4 * kBs, 2);
  WriteBlock(fs, cp, 5, 4 * kBs, 1);
  EXPECT_EQ(cp.Run(), 2u);
  EXPECT_EQ(fs.file(5).creates, (std::vector<bool>{false}));
  Bytes expect = before;
  Bytes appended = EncodeJournalRecords(
      h, std::vector<JournalRecord>{RecordOf(5, 2 * kBs, kBs), RecordOf(5, kBs, kBs)});
  expect.insert(expect.end(), appended.begin(), appended.end());
  EXPECT_EQ(fs.file(5).journal, expect);
  EXPECT_EQ(Records(fs.file(5).journal).size(), 3u);
  EXPECT_EQ(fs.misuses(), 0);
}

TEST(CheckpointerTest, BlocksWrittenDuringASyncWaitForTheNextRun) {
  // The sync covers only what was written before it began; a block written
  // while it runs must not be journaled on its strength.
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  bool once = true;
  fs.AfterSync([&](std::uint32_t) {
    if (once) {
      once = false;
      WriteBlock(fs, cp, 1, 4 * kBs, 1);
    }
  });
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(fs.unsafe_appends(), 0);
  EXPECT_EQ(Records(fs.file(1).journal), (std::vector<JournalRecord>{RecordOf(1, 0, kBs)}));
  EXPECT_EQ(cp.pending(), 1u);
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(Records(fs.file(1).journal).size(), 2u);
  EXPECT_EQ(fs.unsafe_appends(), 0);
}

TEST(CheckpointerTest, ConcurrentWritersAndRunsJournalEachBlockOnceAndSafely) {
  FakeFs fs;
  Checkpointer cp(fs);
  constexpr std::uint64_t kBlocks = 200;
  constexpr std::uint64_t kSize = kBlocks * kBs;
  cp.Track(1, HeaderFor(1, kSize), false, {});
  cp.Track(2, HeaderFor(2, kSize), false, {});
  std::atomic<int> writing{4};
  std::vector<std::thread> writers;
  for (std::uint64_t t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (std::uint64_t b = t; b < kBlocks; b += 4) {
        WriteBlock(fs, cp, static_cast<std::uint32_t>(1 + b % 2), kSize, b);
        WriteBlock(fs, cp, static_cast<std::uint32_t>(2 - b % 2), kSize, b);
      }
      --writing;
    });
  }
  std::size_t journaled = 0;
  while (writing.load() > 0) journaled += cp.Run();
  for (auto& w : writers) w.join();
  journaled += cp.Run();
  EXPECT_EQ(journaled, 2 * kBlocks);
  EXPECT_EQ(cp.pending(), 0u);
  EXPECT_EQ(fs.unsafe_appends(), 0);
  EXPECT_EQ(fs.misuses(), 0);
  for (std::uint32_t id : {1u, 2u}) {
    std::vector<JournalRecord> recs = Records(fs.file(id).journal);
    ASSERT_EQ(recs.size(), kBlocks);
    std::set<std::uint64_t> offsets;
    for (const JournalRecord& r : recs) offsets.insert(r.offset);
    EXPECT_EQ(offsets.size(), kBlocks);
    EXPECT_EQ(cp.journaled_bytes(id), kSize);
  }
}

TEST(CheckpointerTest, JournaledBytesCountsABlockJournaledTwiceOnce) {
  // journaled_bytes is "what a re-run keeps": the bytes the journal covers.
  // A block can be written (and journaled) twice: a requeued block that two
  // streams delivered at once, or a block re-sent whole because an earlier run
  // with another block size kept only part of it.
  FakeFs fs;
  Checkpointer cp(fs);
  cp.Track(1, HeaderFor(1, 4 * kBs), false, {});
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  WriteBlock(fs, cp, 1, 4 * kBs, 0);
  EXPECT_EQ(cp.Run(), 2u);
  EXPECT_EQ(cp.journaled_bytes(1), kBs);

  // Resumed with [0, kBs + 10) kept; block 1 is re-sent whole.
  const Bytes journal = Journal(HeaderFor(2, 4 * kBs), {RecordOf(2, 0, kBs + 10)});
  fs.Preload(2, Bytes(4 * kBs), journal);
  cp.Track(2, HeaderFor(2, 4 * kBs), true, Kept(0, kBs + 10));
  WriteBlock(fs, cp, 2, 4 * kBs, 1);
  EXPECT_EQ(cp.Run(), 1u);
  EXPECT_EQ(cp.journaled_bytes(2), 2u * kBs);
}

}  // namespace
}  // namespace braid
