#pragma once
/// One attempt at the copy (RunAgent runs another after a failure its retry
/// plan takes): starts both ends, relays the file list and the credentials,
/// watches the data phase, and says how it went. Its definitions are in
/// copy_attempt.cc (the copy) and copy_attempt_outcome.cc (what the user is
/// told: the plan, the resume, a failure, the summary).

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "agent/copy_watch.h"
#include "agent/report/digest_store.h"
#include "agent/report/progress_display.h"
#include "agent/report/transfer_report.h"
#include "agent/retry_plan.h"
#include "agent/server_end.h"
#include "agent/stall_watch.h"
#include "braid/options.h"

namespace braid {

class CopyAttempt {
 public:
  /// How often the agent looks at the clock, the interrupt and the progress bar.
  static constexpr auto kTick = std::chrono::milliseconds(100);

  /// With `watch` (one destination of a copy to many) the attempt reports its
  /// counts and outcome there and leaves progress, the failure's line and
  /// --json to the one that runs them all.
  CopyAttempt(const Options& options, ServerLauncher& launcher, RetryPlan& retry,
              CopyWatch* watch = nullptr)
      : options_(options),
        launcher_(launcher),
        retry_(retry),
        watch_(watch),
        start_(std::chrono::steady_clock::now()) {}
  CopyAttempt(const CopyAttempt&) = delete;
  CopyAttempt& operator=(const CopyAttempt&) = delete;

  /// A hop of a chain: the attempt fails (code 15, as its source's) once
  /// `stopped` says the node it follows stopped, whatever it waits for then
  /// (a frozen node's feed never answers). Call before Run.
  void StopWhen(std::function<bool()> stopped) { upstream_stopped_ = std::move(stopped); }
  /// A hop of a chain: the attempt logs in to both ends at once (as every
  /// other hop does), then waits on `feed_up` before it opens its source;
  /// false from it fails the attempt as StopWhen's does. Call before Run.
  void FollowWhen(std::function<bool()> feed_up) { feed_up_ = std::move(feed_up); }
  /// The sink's server was started already (for a chain's probes): the
  /// attempt opens it instead of starting another. Call before Run.
  void UseStartedSink(std::unique_ptr<StartedServer> sink) { started_sink_ = std::move(sink); }

  /// The exit status: 0, or the failure's (after it was printed).
  int Run();
  /// After Run failed: whether the retry plan runs the copy again.
  bool retrying() const { return retrying_; }
  /// After Run failed: the error it ended with.
  const std::optional<BraidError>& error() const { return error_; }
  /// After Run failed: whether the source's end reported the failure (a hop
  /// of a chain: the node it follows may have stopped), not the sink's or the agent.
  bool source_failed() const { return failed_side_ == Side::kSource; }

 private:
  Endpoint CheckSources() const;

  double Elapsed() const;
  /// Seconds since the data phase started (0 before): the progress display's
  /// and the summary's clock.
  double DataSeconds() const;

  /// The next event; throws on interrupt, errors and unexpected ends.
  AgentEvent Next();

  [[noreturn]] static void Unexpected(const AgentEvent& ev);

  void OpenSource();
  void OpenSink();
  /// A hop: returns once the node it follows serves its feed.
  void AwaitFeed();
  /// A hop: the node it follows stopped; thrown as its source's failure.
  [[noreturn]] void UpstreamStopped();

  /// The copy proper, once both ends said Hello: the file list to the sink,
  /// where the sink listens to the source, then the data phase to both Dones.
  void Transfer();

  /// What both ends are told about the data streams, with a fresh secret.
  TransferParams MakeParams() const;

  SinkOpen MakeSinkOpen(const TransferParams& params) const;

  /// -v: what is about to be copied, where the sink listens, and the network options.
  void SayPlan(const SinkReady& ready, const TransferParams& params) const;

  /// Where the source connects (or, with -z, listens), and what the sink already has.
  SourceStart MakeSourceStart(SinkReady ready, const TransferParams& params) const;

  /// -z: the source says where it listens, and the sink is sent there.
  void ConnectReverse();

  /// --stall-timeout: from here on, the sink's counts must move.
  void StartStallWatch();

  /// Shows progress until both ends are Done.
  void WatchDataPhase();

  void OnProgress(Side side, const Progress& p);

  /// -s auto connects only the streams the copy's size can use (`StreamsToConnect`);
  /// a fixed -s N is what the user asked for.
  std::uint16_t StreamsWorthConnecting(const TransferParams& params) const;

  /// "the sink on dtn" or "the local source", for the stall message.
  static std::string EndName(const ServerEnd& end, const char* role);

  void ReceiveFileList();

  /// Says what an earlier run left that this one uses, and counts it.
  void ReportResume(const SinkReady& ready);

  std::string DestinationName() const;
  /// "DEST: " before a line that one of many destinations prints; "" for a copy to one.
  std::string Who() const;

  SourceReady WaitForSource();

  SinkReady WaitForReady();

  /// Stops both ends, picks the error that explains the failure, prints it.
  int Fail(BraidError error);

  /// A pipe or stdin source cannot be read again, and stdout cannot be resumed.
  bool Resumable() const;

  /// The failure that a retry follows: its cause and what happens next, on
  /// two lines; the report's CSV rows stay and its JSON waits for the last attempt.
  int SayRetry(const BraidError& error);

  /// Aborts both ends at once, then waits for each to go: after an interrupt
  /// briefly (a live end answers at once), after a stall not long for an end
  /// that stopped reporting (it will likely not answer either), otherwise as
  /// long as a server may take to stop its work.
  void StopEnds(const BraidError& error, bool interrupted);

  /// The last word after a failure: what a re-run will not have to send again.
  void ReportKept();

  /// Counts a file in place; keeps it only for the digest lines it has (a
  /// million files without -E cost nothing here).
  void OnFileDone(FileDone d);

  /// A path the sink named, as --json names it (host: before it for a remote sink).
  std::string DonePath(const std::string& final_path) const;

  void Report();

  // One thread: everything below is the agent's own thread's (Run and what it
  // calls), except events_, which the ends' reader threads push into (it locks
  // inside). The ends' threads never touch the CopyAttempt itself.
  const Options& options_;
  ServerLauncher& launcher_;
  RetryPlan& retry_;  ///< across attempts: RunAgent's
  CopyWatch* watch_;  ///< a copy to many: where this one reports; else null
  bool retrying_ = false;
  std::optional<BraidError> error_;  ///< what Fail ended the attempt with
  std::chrono::steady_clock::time_point start_;
  BlockingQueue<AgentEvent> events_;
  std::unique_ptr<ServerEnd> source_;
  std::unique_ptr<ServerEnd> sink_;
  std::unique_ptr<ProgressDisplay> progress_;
  std::unique_ptr<TransferReport> report_;  ///< --json / --report-csv; null without them
  std::optional<StallWatch> stall_;         ///< --stall-timeout, during the data phase only
  std::optional<std::uint64_t> total_;
  std::optional<double> data_start_s_;  ///< Elapsed() when the data phase started
  double data_seconds_ = 0;             ///< the data phase's length, once it ended
  std::uint64_t files_done_ = 0;        ///< the sink's count, from its Progress, and skipped
  std::uint64_t files_skipped_ = 0;     ///< complete already: no FileDone comes for them
  std::string current_file_;            ///< arriving at the sink, from its Progress
  std::size_t files_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t wire_bytes_ = 0;
  std::uint16_t streams_ = 0;
  std::uint16_t max_active_ = 0;  ///< -s auto: the most streams that carried data at once
  DigestStore digests_;           ///< of the files done with a digest, to print (-E)
  std::size_t done_count_ = 0;    ///< every FileDone
  bool all_hashed_ = true;        ///< every FileDone carried options_.hash
  /// Every entry's size by id (0 unless regular): 8 bytes an entry, the agent's
  /// only per-entry state besides the digests it prints. A deque: a vector
  /// growing to a million entries held three times that while it moved.
  std::deque<std::uint64_t> sizes_;
  std::uint64_t skipped_bytes_ = 0;  ///< not sent because an earlier run has them
  std::uint32_t failed_blocks_ = 0;
  std::uint64_t complete_bytes_ = 0;  ///< of files skipped whole (in skipped_bytes_ too)
  std::uint64_t same_bytes_ = 0;      ///< bytes compared targets already held (sink's Done)
  std::uint64_t not_listed_ = 0;      ///< source entries left out, unreadable (FileList)
  std::size_t compared_count_ = 0;    ///< files the sink compared block by block
  std::size_t unchanged_count_ = 0;   ///< files left as they were: complete, or compared the same
  bool stream_source_ = false;        ///< a source is a pipe or stdin, which may pause
  std::optional<Kept> kept_;          ///< what the sink kept after a failure
  /// The end whose event is being handled while Next throws; nullopt otherwise.
  std::optional<Side> failed_side_;
  std::function<bool()> upstream_stopped_;       ///< StopWhen's; empty for a copy from the sources
  std::function<bool()> feed_up_;                ///< FollowWhen's; as upstream_stopped_
  std::unique_ptr<StartedServer> started_sink_;  ///< UseStartedSink's, until OpenSink takes it
};

}  // namespace braid
