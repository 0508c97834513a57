#include "source/follow_feed.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "proto/list_budget.h"
#include "session/feed_socket.h"

namespace braid {
namespace {

/// How long the sink being followed may take to give its plan and list.
constexpr std::chrono::seconds kIntroduction{30};

}  // namespace

FollowFeed::FollowFeed(std::string_view token, std::string host, ListLimits limits)
    : host_(std::move(host)),
      stream_(ConnectFeed(token, host_), {"the feed's read failed", "the feed's write failed"}),
      channel_(stream_) {
  // A sink that is stopped (SIGSTOP) keeps its feed open and never answers,
  // and this runs on the server's control thread, which would then never see
  // the agent go: the introduction is cut off after kIntroduction.
  std::mutex mu;
  std::condition_variable cv;
  bool introduced = false;
  bool cut = false;
  std::thread guard([&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, kIntroduction, [&] { return introduced; })) {
      cut = true;
      stream_.Shutdown();
    }
  });
  auto finish = [&] {
    {
      std::lock_guard<std::mutex> lock(mu);
      introduced = true;
    }
    cv.notify_all();
    guard.join();
  };
  const std::string too_slow = "did not answer in " + std::to_string(kIntroduction.count()) + " s";
  try {
    channel_.Send(FeedHello{std::string(token)});
    ReadPlanAndList(limits);
  } catch (const BraidError&) {
    finish();
    if (cut) Lost(too_slow);
    throw;
  }
  finish();
  // The guard may have fired just as the list came: the stream is shut then.
  if (cut) Lost(too_slow);
}

void FollowFeed::Lost(const std::string& why) const {
  throw BraidError(ErrorCode::kPeerLost, (host_.empty() ? std::string() : host_ + ": ") +
                                             "the copy this hop forwards " + why);
}

void FollowFeed::ReadPlanAndList(ListLimits limits) {
  std::optional<ControlMessage> first = channel_.Receive();
  if (!first) Lost("ended before it said where its files are");
  const auto* plan = std::get_if<FeedPlan>(&*first);
  if (plan == nullptr) {
    throw BraidError(ErrorCode::kProtocol,
                     "protocol error: the feed began with " + std::string(MessageName(*first)));
  }
  TargetPlan target;
  target.mode = static_cast<TargetPlan::Mode>(plan->mode);
  target.base = plan->base;
  list_.followed = target;
  ListBudget budget(limits, "the feed on " + (host_.empty() ? std::string("this host") : host_));
  for (;;) {
    std::optional<ControlMessage> msg = channel_.Receive();
    if (!msg) Lost("ended in its file list");
    auto* chunk = std::get_if<FileList>(&*msg);
    if (chunk == nullptr) {
      throw BraidError(ErrorCode::kProtocol, "protocol error: " + std::string(MessageName(*msg)) +
                                                 " in the feed's file list");
    }
    for (const FileEntry& e : chunk->entries) {
      budget.Add(e);
      // Its partial file ends where its data has come to, not where the stream will.
      if (e.kind == FileKind::kStream) {
        throw BraidError(ErrorCode::kUsage, e.path +
                                                " is a stream of unknown size: a chain "
                                                "forwards files only (use --topology star)");
      }
      if (e.id != list_.entries.size()) {
        throw BraidError(ErrorCode::kProtocol, "protocol error: the feed's list is out of order");
      }
      list_.entries.Add(e);
    }
    if (chunk->last) break;
  }
}

std::optional<FollowedFile> FollowFeed::Ask(std::uint32_t id, std::uint64_t have) {
  try {
    channel_.Send(FeedWait{id, have});
  } catch (const BraidError&) {
    // A sink that finished says Done and goes: its Done is read below.
  }
  for (;;) {
    std::optional<ControlMessage> msg = channel_.Receive();
    if (!msg) Lost("stopped");
    if (std::holds_alternative<Done>(*msg)) return std::nullopt;
    if (const auto* error = std::get_if<ErrorMessage>(&*msg)) Lost("failed: " + error->message);
    const auto* answer = std::get_if<FeedHave>(&*msg);
    if (answer == nullptr || answer->file_id != id) {
      throw BraidError(ErrorCode::kProtocol,
                       "protocol error: the feed answered " + std::string(MessageName(*msg)));
    }
    FollowedFile file{answer->prefix, answer->committed, answer->ended, std::nullopt};
    if (answer->digest.size > 0) file.digest = answer->digest;
    return file;
  }
}

FollowedFile FollowFeed::WaitFor(std::uint32_t id, std::uint64_t need, bool want_end) {
  MutexLock lock(mu_);
  std::uint64_t have = 0;
  for (;;) {
    if (all_in_place_) return FollowedFile{need, true, true, std::nullopt};
    std::optional<FollowedFile> file = Ask(id, have);
    if (!file) {
      // Done may come as the answer to any question: nothing more is asked.
      all_in_place_ = true;
      continue;
    }
    if (file->committed || (file->prefix >= need && (!want_end || file->ended))) return *file;
    // The feed answers only once there is more, or the file is whole: whole
    // and still short of what was listed is no file of this list.
    if (file->prefix <= have) {
      throw BraidError(ErrorCode::kProtocol, "protocol error: the feed's file " +
                                                 std::to_string(id) + " ended at " +
                                                 std::to_string(file->prefix) + " bytes");
    }
    have = file->prefix;
  }
}

}  // namespace braid
