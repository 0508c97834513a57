#include "session/feed_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "braid/error.h"
#include "proto/control_message.h"
#include "security/crypto/session_secret.h"

namespace braid {
namespace {

/// The abstract name of `token`'s feed: a NUL, then "braid-feed-TOKEN".
socklen_t AddressOf(std::string_view token, sockaddr_un& addr) {
  std::memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  const std::string name = "braid-feed-" + std::string(token);
  // Tokens are 32 characters (IsFeedToken): the name fits with room to spare.
  const std::size_t length = std::min(name.size(), sizeof addr.sun_path - 1);
  std::memcpy(addr.sun_path + 1, name.data(), length);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + length);
}

std::string FeedName(std::string_view token) { return "the feed braid-feed-" + std::string(token); }

}  // namespace

std::string NewFeedToken() {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (std::uint8_t b : RandomArray<kFeedTokenLength / 2>()) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

FeedListener::FeedListener(std::string_view token, const std::string& host)
    : fd_(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  sockaddr_un addr{};
  const socklen_t length = AddressOf(token, addr);
  if (!fd_.valid() || ::bind(fd_.get(), reinterpret_cast<sockaddr*>(&addr), length) != 0 ||
      ::listen(fd_.get(), 16) != 0) {
    throw BraidError(ErrorCode::kTargetUnwritable, DescribeErrno(host, FeedName(token), errno) +
                                                       " (listening for the next hop of a chain)");
  }
}

UniqueFd FeedListener::AcceptOwnUser() {
  UniqueFd fd(::accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (!fd.valid()) return fd;
  ucred peer{};
  socklen_t size = sizeof peer;
  if (::getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 ||
      peer.uid != ::geteuid()) {
    errno = EPERM;
    return UniqueFd();
  }
  return fd;
}

UniqueFd ConnectFeed(std::string_view token, const std::string& host) {
  sockaddr_un addr{};
  const socklen_t length = AddressOf(token, addr);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (fd.valid() && ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), length) == 0) {
    return fd;
  }
  throw BraidError(ErrorCode::kPeerLost, DescribeErrno(host, FeedName(token), errno) +
                                             " (the copy there that this hop forwards stopped)");
}

}  // namespace braid
