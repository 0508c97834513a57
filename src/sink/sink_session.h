#pragma once
/// The receiving side of a transfer: listens, authenticates the streams,
/// checks and writes every block where it belongs, verifies each file (per
/// block checksum always, whole-file digest with -E) and renames it into place.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "proto/control_message.h"
#include "session/packed_list.h"
#include "session/transfer_state.h"

namespace braid {

struct SinkCallbacks {
  /// Listening; tell the source. Handed over, not lent: a re-run's resume list
  /// is an entry a file, and a copy of it was a second one at the peak.
  std::function<void(SinkReady)> ready;
  /// Files verified and in place, one commit batch at a time (in commit order).
  std::function<void(const std::vector<FileDone>&)> files_done;
  std::function<void(const std::string&)> warn;
  std::function<void(const Kept&)> kept;  ///< after a failure: what a re-run keeps
};

class SinkSession {
 public:
  SinkSession(PackedList entries, SinkOpen open, std::string host);
  ~SinkSession();
  SinkSession(const SinkSession&) = delete;
  SinkSession& operator=(const SinkSession&) = delete;

  /// Prepares the target (resuming what earlier runs left), listens, receives
  /// everything; blocks until every file is in place. On failure keeps the
  /// journaled partial files for a re-run (unless told not to) and throws BraidError.
  void Run(const SinkCallbacks& callbacks);
  void Abort(const std::string& why) { state_.Abort(why); }
  /// The addresses SinkReady names (a multi-homed host lists several); call before Run().
  void Advertise(std::vector<std::string> addresses);
  /// -z: connect the data streams to where the source listens; from any thread.
  void Connect(const SinkConnect& where);
  TransferState& state() { return state_; }
  /// The list's path of the file a block arrived for last ("" before the
  /// first); from any thread (the server's reporter).
  std::string ArrivingPath() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  TransferState state_;
};

}  // namespace braid
