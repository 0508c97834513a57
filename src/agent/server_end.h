#pragma once
/// The agent's handle on one `braid --serve`: its control channel (from a
/// ServerLauncher, which knows how the server was started), the Hello
/// exchange, and a reader thread that turns incoming messages into events on
/// the agent's queue.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "braid/byte_stream.h"
#include "braid/endpoint.h"
#include "braid/mutex.h"
#include "braid/options.h"
#include "launch/server_launcher.h"
#include "proto/control_channel.h"
#include "session/blocking_queue.h"

namespace braid {

struct AgentEvent {
  Side side = Side::kSource;
  std::optional<ControlMessage> message;  ///< nullopt: the channel ended
  std::optional<BraidError> error;        ///< the channel failed or sent garbage
};

class ServerEnd {
 public:
  /// Starts the server for `endpoint` through `launcher` and says Hello.
  /// Throws BraidError: the launcher's (ssh errors), kRemoteMissing, kPeerLost.
  ServerEnd(Side side, const Endpoint& endpoint, const Options& options, ServerLauncher& launcher,
            BlockingQueue<AgentEvent>& events);
  ~ServerEnd();
  ServerEnd(const ServerEnd&) = delete;
  ServerEnd& operator=(const ServerEnd&) = delete;

  /// The agent took one of this end's FileList chunks from the event queue;
  /// the reader, which holds back while kMaxQueuedLists are queued, may read on.
  void TookFileList();
  /// Sends, reporting a failure as an event rather than throwing.
  void Send(const ControlMessage& message);
  /// From now on the events go to `events`, with those still queued where
  /// they went so far moved there first: a server started for one purpose
  /// (a chain's RTT probes) is kept for the copy that follows.
  void Redirect(BlockingQueue<AgentEvent>& events);
  /// Longer than a server's own limit for stopping its work (15 s), so a server
  /// that answers is never cut short.
  static constexpr std::chrono::milliseconds kCloseGrace{20000};
  /// Tells the server to finish (Bye) or stop (Abort), then waits for it to go,
  /// at most `grace`: a stopped or hung server is then abandoned (killed or cut
  /// off), since it may never answer.
  void Close(const std::optional<std::string>& abort_reason,
             std::chrono::milliseconds grace = kCloseGrace);
  /// Close in two halves, so that both ends can be told before either is
  /// waited for: Bye or Abort, then the wait until `deadline`.
  void BeginClose(const std::optional<std::string>& abort_reason);
  void FinishClose(std::chrono::steady_clock::time_point deadline);

  /// The name for messages: the host as the user typed it, or "" when local.
  const std::string& label() const { return label_; }
  bool is_remote() const { return !label_.empty(); }
  const HelloReply& hello() const { return hello_; }
  /// Our address on the ssh connection to this host ("" for a local child).
  std::string local_address() const;
  /// Explains an early end of the channel: missing remote braid, crash...
  BraidError DescribeEnd();

 private:
  /// Hello and its reply, by `deadline` (--connect-timeout) and unless
  /// interrupted; throws what DescribeEnd says, kProtocol for a peer that is
  /// not braid --serve, kHostUnreachable for one that does not answer.
  void Greet(std::chrono::steady_clock::time_point deadline);
  /// DescribeEnd for an end before the reply to Hello; an exit status of 1
  /// there is what a braid too old to read our Hello does, so it says so.
  BraidError EndedBeforeAnswer();
  /// The one line for a server of another protocol version: both versions
  /// and the fix (--deploy, or -T to a matching braid).
  BraidError VersionMismatch(const HelloReply& reply) const;
  /// The first thing the reader received (the reply to Hello), waited for
  /// in short slices so that an interrupt is seen.
  AgentEvent AwaitGreeting(std::chrono::steady_clock::time_point deadline);
  void ReadLoop();
  /// Queues an event where events go now.
  void Deliver(AgentEvent event) BRAID_EXCLUDES(reader_mu_);
  /// The reader's wait after queueing a FileList chunk, until the agent has
  /// taken enough of them: a source that lists faster than the agent relays
  /// would otherwise make the agent hold its list (60 MiB of a million entries).
  void HoldBack();
  /// Ends every HoldBack for good (closing, or a failed start).
  void StopHoldingBack();
  /// Whether the reader ended by `deadline`.
  bool WaitForReader(std::chrono::steady_clock::time_point deadline);
  /// "local server" or the host, for messages about an answer.
  std::string ServerName() const;

  // The fields below are set in the constructor, before reader_ starts, and
  // only read after that, unless said otherwise.
  Side side_;
  std::string label_;
  std::string command_;
  double connect_timeout_s_;  ///< --connect-timeout, for the message
  /// Thread-safe where it is shared: the reader thread reads (ReadSome) while
  /// the agent's thread writes (WriteAll, CloseWrite) or Abandons it.
  std::unique_ptr<ServerChannel> channel_;
  /// Receive is the reader thread's alone; Send locks inside.
  std::unique_ptr<ControlChannel> control_;
  /// Thread-safe itself; which one it is may change (Redirect).
  BlockingQueue<AgentEvent>* events_ BRAID_GUARDED_BY(reader_mu_);
  HelloReply hello_;
  /// Started by the constructor and joined by Close, both on the agent's thread.
  std::thread reader_;
  Mutex reader_mu_;
  std::condition_variable
      reader_cv_;  ///< signals reader_done_, greeting_, lists_queued_, stop_holding_back_
  bool reader_done_ BRAID_GUARDED_BY(reader_mu_) = false;  ///< ReadLoop has returned
  static constexpr int kMaxQueuedLists = 1;
  int lists_queued_ BRAID_GUARDED_BY(reader_mu_) = 0;  ///< FileList chunks queued, not taken
  bool stop_holding_back_ BRAID_GUARDED_BY(reader_mu_) = false;  ///< StopHoldingBack was called
  /// The reply to Hello, which the reader hands to Greet instead of the queue.
  std::optional<AgentEvent> greeting_ BRAID_GUARDED_BY(reader_mu_);
  bool closed_ = false;  ///< the agent's thread only (Close, the destructor)
};

/// A server started before the copy that uses it (a chain's RTT probes start
/// the destinations' servers), with the queue its events wait in until then.
/// Members in this order: the end goes before the queue it may still use.
struct StartedServer {
  BlockingQueue<AgentEvent> events;
  std::unique_ptr<ServerEnd> end;
};

}  // namespace braid
