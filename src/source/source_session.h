#pragma once
/// The sending side of a transfer: one reader thread fills page-aligned
/// buffers in file order, an optional hasher computes each file's digest (-E) from
/// the same buffers, and one sender thread per stream pulls the next block
/// from a shared queue, so a slow stream never holds the others back.

#include <memory>
#include <string>
#include <vector>

#include "proto/control_message.h"
#include "session/transfer_state.h"
#include "source/follow_feed.h"
#include "source/source_list.h"
#include "transport/listen_plan.h"

namespace braid {

class SourceSession {
 public:
  SourceSession(SourceList files, SourceStart start, std::string host);
  ~SourceSession();
  SourceSession(const SourceSession&) = delete;
  SourceSession& operator=(const SourceSession&) = delete;

  /// Connects the streams and sends everything; blocks until done.
  /// Throws BraidError on failure (after stopping every thread).
  /// `warn` gets messages the user should see (fewer streams than asked...).
  void Run(const std::function<void(const std::string&)>& warn);
  /// -z: listen (as `plan` says) instead of connecting; `listening` is told
  /// where, for the agent to pass to the sink. Call before Run().
  void ListenInstead(ListenPlan plan, std::function<void(const SourceReady&)> listening);
  /// A hop of a chain: the list came from this feed, and each block is read
  /// once the sink being followed has written it. Call before Run().
  void Follow(std::unique_ptr<FollowFeed> feed);
  /// Stops a running transfer from another thread.
  void Abort(const std::string& why) { state_.Abort(why); }
  TransferState& state() { return state_; }
  /// Each connected stream's bytes sent (on the wire) and TCP_INFO, for the
  /// reports; empty before the streams connect. Safe from any thread.
  std::vector<StreamSample> StreamSamples() const;
  /// How long the reader has waited for its input in all: for a hop of a
  /// chain, for the node it follows to write what it sends next. Safe from any thread.
  double InputWaitSeconds() const;
  /// -s auto: how many streams carry data; the others park, connected. Safe
  /// from any thread; counts outside 1..connected are clamped.
  void SetActiveStreams(int count);
  int active_streams() const;
  /// --polite: caps the total rate (bytes/s; 0 lifts the cap). -x still applies.
  void SetPace(std::uint64_t bytes_per_second);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  TransferState state_;
};

}  // namespace braid
