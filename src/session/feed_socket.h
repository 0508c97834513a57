#pragma once
/// Where a forwarding sink's feed listens on its host, and how the source that
/// follows it gets there: a Unix socket in the abstract namespace (nothing on
/// disk to leave behind when a server is killed), named by the feed's token
/// (docs/protocol.md, "Forwarding"). Both ends run as the same user on the
/// same host (in one network namespace); the listener takes only connections
/// from its own user (SO_PEERCRED), and the follower proves the token, which
/// only the agent and the two servers were told.

#include <string>
#include <string_view>

#include "braid/unique_fd.h"

namespace braid {

/// A fresh token (IsFeedToken): 16 bytes from OpenSSL's CSPRNG, in hex.
std::string NewFeedToken();

/// The listening end: listens until destroyed.
class FeedListener {
 public:
  /// Throws BraidError(kTargetUnwritable) naming `host` when the socket cannot
  /// be made (the name is taken: another feed of this token).
  FeedListener(std::string_view token, const std::string& host);
  FeedListener(const FeedListener&) = delete;
  FeedListener& operator=(const FeedListener&) = delete;

  int fd() const { return fd_.get(); }
  /// The next connection from this user; invalid when the one accepted was
  /// another user's (closed at once) or accept failed (errno says why).
  UniqueFd AcceptOwnUser();

 private:
  UniqueFd fd_;
};

/// The following source's end: connected to the feed of `token` on this host.
/// Throws BraidError(kPeerLost) naming `host` when no feed listens there (the
/// sink it would follow stopped, or never began).
UniqueFd ConnectFeed(std::string_view token, const std::string& host);

}  // namespace braid
