#pragma once
/// The journals on disk: one "NAME.braid-journal" beside each partial file.
/// Only translates between the checkpoint logic and the file system.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "braid/mutex.h"
#include "braid/unique_fd.h"
#include "resume/resume_journal.h"

namespace braid {

class JournalFiles {
 public:
  explicit JournalFiles(std::string host) : host_(std::move(host)) {}
  JournalFiles(const JournalFiles&) = delete;
  JournalFiles& operator=(const JournalFiles&) = delete;

  /// Names where file `id`'s journal lives, and how large it can grow: that
  /// much is reserved when it is created, so a full disk cannot refuse the
  /// records that say what a failed copy kept. `may_exist` false: the caller
  /// knows there is no journal there yet, so Remove need not unlink one.
  void SetPath(std::uint32_t id, std::string path, std::uint64_t reserve = 0,
               bool may_exist = true);
  /// Reads and decodes a journal. nullopt when there is none; a journal that
  /// is not a valid braid journal is reported in `why` and treated as none.
  std::optional<DecodedJournal> Load(std::uint32_t id, std::string* why) const;
  /// Appends (after truncating it when `create`). A failed append is cut off
  /// again, so later records never follow a torn one. Throws BraidError.
  void Append(std::uint32_t id, bool create, std::span<const std::uint8_t> bytes);
  /// Replaces the journal atomically (temporary file, fsync, rename).
  void Rewrite(std::uint32_t id, std::span<const std::uint8_t> bytes);
  /// Closes and deletes the journal, if any.
  void Remove(std::uint32_t id);

 private:
  [[noreturn]] void Fail(const std::string& path, int err) const;

  struct Open {
    std::string path;
    UniqueFd fd;
    std::uint64_t size = 0;
    std::uint64_t reserve = 0;
    bool may_exist = true;  ///< false until this process creates it, when known absent
  };
  const std::string host_;  ///< set in the constructor
  /// The checkpoint thread appends, the committing thread removes, the
  /// session sets paths and loads: every journal's state is under it, and
  /// Append, Rewrite and Remove hold it across their file-system calls.
  mutable Mutex mutex_;
  std::map<std::uint32_t, Open> files_ BRAID_GUARDED_BY(mutex_);
};

}  // namespace braid
