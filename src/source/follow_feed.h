#pragma once
/// The source of a chain's later hop: it reads what the sink on its own host
/// writes, as that arrives, through the sink's feed (sink/forward_feed.h,
/// docs/protocol.md "Forwarding"). This end connects, takes the target plan
/// and the file list, and then asks, file by file, how much is there.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "braid/limits.h"
#include "braid/mutex.h"
#include "proto/control_channel.h"
#include "security/crypto/file_digest.h"
#include "source/source_list.h"
#include "transport/fd_byte_stream.h"

namespace braid {

/// What the sink being followed has of one file.
struct FollowedFile {
  std::uint64_t prefix = 0;           ///< bytes from its start in its partial file
  bool committed = false;             ///< in place under its final name: read it there
  bool ended = false;                 ///< its end arrived there
  std::optional<DigestValue> digest;  ///< the first source's, with -E, until committed
};

class FollowFeed {
 public:
  /// Connects to the feed of `token` on this host and reads the plan and the
  /// list (at most `limits`). Throws BraidError(kPeerLost) when there is no
  /// such feed or it ends, kProtocol for a malformed answer.
  FollowFeed(std::string_view token, std::string host, ListLimits limits = {});
  FollowFeed(const FollowFeed&) = delete;
  FollowFeed& operator=(const FollowFeed&) = delete;

  /// The list to send on: the entries the followed sink got, each read where it puts
  /// them (SourceList::followed). Once.
  SourceList TakeList() { return std::move(list_); }

  /// Blocks until file `id` has at least `need` bytes from its start there,
  /// and with `want_end` its end too, or it is committed. Any thread; one
  /// question at a time. Throws BraidError(kPeerLost) when the followed sink
  /// failed or went away.
  FollowedFile WaitFor(std::uint32_t id, std::uint64_t need, bool want_end);

  /// From another thread: a wait under way ends with an error.
  void Abort() { stream_.Shutdown(); }

 private:
  void ReadPlanAndList(ListLimits limits);
  /// One answer to a FeedWait for `id`; nullopt once the sink said all is in place.
  std::optional<FollowedFile> Ask(std::uint32_t id, std::uint64_t have);
  [[noreturn]] void Lost(const std::string& why) const;

  const std::string host_;
  FdByteStream stream_;
  ControlChannel channel_;
  SourceList list_;  ///< until TakeList
  Mutex mu_;         ///< one question and its answer at a time
  /// The followed sink finished: every file is in place.
  bool all_in_place_ BRAID_GUARDED_BY(mu_) = false;
};

}  // namespace braid
