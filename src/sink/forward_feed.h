#pragma once
/// A sink that forwards (a hop of a chain, --topology chain): beside writing
/// what arrives, it tells the sources that follow it on this host what it has
/// written, so each sends a block on to the next destination as soon as it is
/// here. One thread accepts followers, and one serves each (docs/protocol.md,
/// "Forwarding"): a follower says FeedHello with the token, gets the target
/// plan and the file list, then asks FeedWait and is answered FeedHave when
/// the file has more. When the sink ends, followers get Done (everything is in
/// place) or Error (it failed; what it had written may be gone).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "braid/mutex.h"
#include "braid/unique_fd.h"
#include "session/feed_socket.h"
#include "sink/sink_files.h"
#include "transport/fd_byte_stream.h"

namespace braid {

class ControlChannel;

class ForwardFeed {
 public:
  /// Listens at once (throws as FeedListener does); `files` must outlive this.
  ForwardFeed(SinkFiles& files, std::string_view token, std::string host);
  /// Stops every thread; a follower still connected reads the end of the feed.
  ~ForwardFeed();
  ForwardFeed(const ForwardFeed&) = delete;
  ForwardFeed& operator=(const ForwardFeed&) = delete;

  /// Every file is in place: followers are told so and need ask no more.
  void Finish();
  /// The sink failed: followers are told why (it names this host).
  void Fail(const std::string& why);

 private:
  /// One follower's connection: its channel's sends are serialised inside it,
  /// so Finish and Fail may send beside the thread that serves it.
  struct Follower {
    explicit Follower(UniqueFd fd);
    ~Follower();
    FdByteStream stream;
    std::unique_ptr<ControlChannel> channel;
    std::thread thread;
    /// Sent the plan and the list: Done or Error may follow. The feed's mu_ guards it.
    bool introduced = false;
  };

  void AcceptLoop();
  void Serve(Follower& follower);
  /// FeedHello checked, then the plan and the list; false if the peer is no follower of ours.
  bool Introduce(ControlChannel& channel);
  /// Sends `last` to every follower (Done or Error), once.
  void Tell(const std::optional<std::string>& failure);

  SinkFiles& files_;
  const std::string token_;
  const std::string host_;
  FeedListener listener_;
  UniqueFd stop_;  ///< an eventfd: readable once the feed is being destroyed
  Mutex mu_;
  /// Owned here, each served by its own thread until the feed is destroyed.
  std::vector<std::unique_ptr<Follower>> followers_ BRAID_GUARDED_BY(mu_);
  /// Once the sink ended: nullopt while it runs, then "" (done) or why it failed.
  std::optional<std::string> ended_ BRAID_GUARDED_BY(mu_);
  std::thread acceptor_;  ///< started last, joined first
};

}  // namespace braid
