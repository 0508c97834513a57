#include "sink/forward_feed.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "proto/control_channel.h"
#include "proto/control_message.h"

namespace braid {
namespace {

/// Entries a FileList chunk carries to a follower, as a source's server sends them.
constexpr std::size_t kEntriesPerChunk = 4096;

}  // namespace

ForwardFeed::Follower::Follower(UniqueFd fd)
    : stream(std::move(fd), {"the feed's read failed", "the feed's write failed"}),
      channel(std::make_unique<ControlChannel>(stream)) {}

ForwardFeed::Follower::~Follower() {
  stream.Shutdown();
  if (thread.joinable()) thread.join();
}

ForwardFeed::ForwardFeed(SinkFiles& files, std::string_view token, std::string host)
    : files_(files),
      token_(token),
      host_(std::move(host)),
      listener_(token, host_),
      stop_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  if (!stop_.valid()) throw BraidError(ErrorCode::kInternal, "eventfd failed for the feed");
  files_.NameEveryFile();
  acceptor_ = std::thread([this] { AcceptLoop(); });
}

ForwardFeed::~ForwardFeed() {
  std::uint64_t one = 1;
  if (::write(stop_.get(), &one, sizeof one) < 0) {
    // An eventfd write fails only on overflow; the loop's poll sees it readable anyway.
  }
  acceptor_.join();
  std::vector<std::unique_ptr<Follower>> followers;
  {
    MutexLock lock(mu_);
    followers.swap(followers_);
  }
  // A follower waiting in SinkFiles::WaitForForward is woken by the sink's
  // abort, or finds its file committed; each destructor shuts its stream and joins.
  followers.clear();
}

void ForwardFeed::AcceptLoop() {
  for (;;) {
    pollfd fds[2] = {{listener_.fd(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
    if (fds[1].revents != 0) return;
    if (fds[0].revents == 0) continue;
    UniqueFd fd = listener_.AcceptOwnUser();
    if (!fd.valid()) {
      if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN || errno == EPERM) continue;
      return;
    }
    auto follower = std::make_unique<Follower>(std::move(fd));
    Follower& f = *follower;
    MutexLock lock(mu_);
    followers_.push_back(std::move(follower));
    f.thread = std::thread([this, &f] { Serve(f); });
  }
}

bool ForwardFeed::Introduce(ControlChannel& channel) {
  std::optional<ControlMessage> first = channel.Receive();
  const auto* hello = first ? std::get_if<FeedHello>(&*first) : nullptr;
  // Not compared in constant time: only this user's processes get this far (SO_PEERCRED).
  if (hello == nullptr || hello->token != token_) return false;
  const TargetPlan& plan = files_.plan();
  channel.Send(FeedPlan{static_cast<std::uint8_t>(plan.mode), plan.base});
  const PackedList& list = files_.list();
  FileList chunk;
  for (std::uint32_t id = 0; id < list.size(); ++id) {
    chunk.entries.push_back(list.Entry(id));
    if (chunk.entries.size() == kEntriesPerChunk) {
      channel.Send(chunk);
      chunk.entries.clear();
    }
  }
  chunk.last = true;
  channel.Send(chunk);
  return true;
}

void ForwardFeed::Serve(Follower& follower) {
  ControlChannel& channel = *follower.channel;
  try {
    if (!Introduce(channel)) return;
    {
      MutexLock lock(mu_);
      follower.introduced = true;
      // It came after the end: told at once, as the others were.
      if (ended_) {
        if (ended_->empty()) {
          channel.Send(Done{});
        } else {
          channel.Send(ErrorMessage{ErrorCode::kPeerLost, *ended_});
        }
      }
    }
    while (std::optional<ControlMessage> msg = channel.Receive()) {
      const auto* wait = std::get_if<FeedWait>(&*msg);
      if (wait == nullptr) {
        throw BraidError(ErrorCode::kProtocol,
                         std::string("protocol error: ") + MessageName(*msg) + " on the feed");
      }
      if (wait->file_id >= files_.list().size()) {
        throw BraidError(ErrorCode::kProtocol, "protocol error: the feed was asked for no file");
      }
      std::optional<ForwardState> now = files_.WaitForForward(wait->file_id, wait->have);
      if (!now) return;  // the sink failed: Fail tells the follower
      FeedHave have{wait->file_id, now->prefix, now->committed, now->ended, {}};
      if (now->digest) have.digest = *now->digest;
      channel.Send(have);
    }
  } catch (const BraidError& e) {
    try {
      if (e.code() == ErrorCode::kProtocol) channel.Send(ErrorMessage{e.code(), e.what()});
    } catch (const BraidError&) {
      // The follower is gone; nothing to tell it.
    }
  }
}

void ForwardFeed::Tell(const std::optional<std::string>& failure) {
  MutexLock lock(mu_);
  if (ended_) return;
  ended_ = failure.value_or("");
  for (auto& f : followers_) {
    if (!f->introduced) continue;  // told once it is (Serve)
    try {
      if (failure) {
        f->channel->Send(ErrorMessage{ErrorCode::kPeerLost, *failure});
      } else {
        f->channel->Send(Done{});
      }
    } catch (const BraidError&) {
      // That follower left; the others still hear.
    }
  }
}

void ForwardFeed::Finish() { Tell(std::nullopt); }

void ForwardFeed::Fail(const std::string& why) { Tell(host_.empty() ? why : host_ + ": " + why); }

}  // namespace braid
