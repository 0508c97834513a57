// The data-stream listener and connector over real loopback sockets: strangers,
// wrong secrets, replays and surplus connections are closed without touching
// the streams that belong to the transfer.

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <thread>

#include "braid/unique_fd.h"
#include "security/crypto/stream_handshake.h"
#include "transport/data_connector.h"
#include "transport/data_listener.h"

namespace braid {
namespace {

using namespace std::chrono_literals;

UniqueFd RawConnect(std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return {};
  return fd;
}

/// Reads until the peer closes; true if it closed (rather than timing out).
bool ClosedByPeer(int fd) {
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char buf[256];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

struct ListenerRun {
  Secret secret = RandomArray<kSecretSize>();
  SessionId session = RandomArray<kSessionIdSize>();
  DataListener listener{"127.0.0.1", SocketTuning{}};
  std::vector<AuthenticatedStream> streams;
  std::thread thread;

  void Start(std::uint16_t limit) {
    thread = std::thread([this, limit] {
      listener.Run(secret, session, limit, Cipher::kAes128Gcm, 20s,
                   [this](AuthenticatedStream s) { streams.push_back(std::move(s)); });
    });
  }
  void Join() {
    if (thread.joinable()) thread.join();
  }
  ~ListenerRun() {
    listener.Stop();
    Join();
  }
};

TEST(DataStreamTest, StrangersAreClosedAndGenuineStreamsGetIn) {
  ListenerRun run;
  std::uint16_t port = run.listener.port();
  run.Start(2);

  // Garbage instead of a hello.
  UniqueFd garbage = RawConnect(port);
  ASSERT_TRUE(garbage.valid());
  std::string junk(kHelloSize, 'x');
  ASSERT_EQ(::send(garbage.get(), junk.data(), junk.size(), 0), static_cast<ssize_t>(junk.size()));
  EXPECT_TRUE(ClosedByPeer(garbage.get()));

  // A connector with the wrong secret is refused and learns nothing usable.
  Secret wrong = RandomArray<kSecretSize>();
  ConnectResult bad =
      ConnectDataStreams({"127.0.0.1"}, port, wrong, run.session, 1, Cipher::kAes128Gcm, {}, 5s);
  EXPECT_TRUE(bad.streams.empty());
  EXPECT_FALSE(bad.last_error.empty());

  // A connection that says nothing does not block the others.
  UniqueFd silent = RawConnect(port);
  ASSERT_TRUE(silent.valid());

  ConnectResult good = ConnectDataStreams({"127.0.0.1"}, port, run.secret, run.session, 2,
                                          Cipher::kAes128Gcm, {}, 5s);
  EXPECT_EQ(good.streams.size(), 2u) << good.last_error;
  run.Join();
  ASSERT_EQ(run.streams.size(), 2u);
  std::set<std::uint16_t> indexes{run.streams[0].index, run.streams[1].index};
  EXPECT_EQ(indexes, (std::set<std::uint16_t>{0, 1}));
  EXPECT_GE(run.listener.rejected(), 2);
  // Each end holds its stream's keys, the connector's send key the listener's receive key.
  for (const AuthenticatedStream& in : run.streams) {
    ASSERT_TRUE(in.keys.has_value());
    for (const AuthenticatedStream& out : good.streams) {
      ASSERT_TRUE(out.keys.has_value());
      if (out.index != in.index) continue;
      auto bytes = [](const StreamKey& k) {
        return std::vector<std::uint8_t>(k.bytes().begin(), k.bytes().end());
      };
      EXPECT_EQ(bytes(out.keys->send), bytes(in.keys->receive));
      EXPECT_EQ(bytes(out.keys->receive), bytes(in.keys->send));
      EXPECT_NE(bytes(out.keys->send), bytes(out.keys->receive));
    }
  }

  // Once its streams are in, the listener no longer listens.
  EXPECT_FALSE(RawConnect(port).valid());
}

TEST(DataStreamTest, ReplayedProofIsRejected) {
  ListenerRun run;
  std::uint16_t port = run.listener.port();
  run.Start(1);

  // Record a genuine connector's proof against one listener nonce...
  UniqueFd first = RawConnect(port);
  HandshakeConnector connector(run.secret, run.session, 0, RandomArray<kNonceSize>());
  auto hello = connector.Hello();
  ASSERT_EQ(::send(first.get(), hello.data(), hello.size(), 0), static_cast<ssize_t>(hello.size()));
  std::vector<std::uint8_t> challenge(kChallengeSize);
  ASSERT_EQ(::recv(first.get(), challenge.data(), challenge.size(), MSG_WAITALL),
            static_cast<ssize_t>(challenge.size()));
  auto proof = connector.OnChallenge(challenge);
  first.Reset();  // ...and abandon that connection.

  // Replaying the same hello and proof on a new connection meets a fresh nonce.
  UniqueFd replay = RawConnect(port);
  ASSERT_EQ(::send(replay.get(), hello.data(), hello.size(), 0),
            static_cast<ssize_t>(hello.size()));
  std::vector<std::uint8_t> second(kChallengeSize);
  ASSERT_EQ(::recv(replay.get(), second.data(), second.size(), MSG_WAITALL),
            static_cast<ssize_t>(second.size()));
  EXPECT_NE(second, challenge);
  ASSERT_EQ(::send(replay.get(), proof.data(), proof.size(), 0),
            static_cast<ssize_t>(proof.size()));
  EXPECT_TRUE(ClosedByPeer(replay.get()));
  EXPECT_TRUE(run.streams.empty());
}

TEST(DataStreamTest, SurplusConnectionForAnIndexAlreadyInIsClosed) {
  ListenerRun run;
  std::uint16_t port = run.listener.port();
  run.Start(2);
  ConnectResult one = ConnectDataStreams({"127.0.0.1"}, port, run.secret, run.session, 1,
                                         Cipher::kAes128Gcm, {}, 5s);
  ASSERT_EQ(one.streams.size(), 1u);
  // Index 0 again: genuine credentials, but the stream is already in.
  ConnectResult again = ConnectDataStreams({"127.0.0.1"}, port, run.secret, run.session, 1,
                                           Cipher::kAes128Gcm, {}, 5s);
  EXPECT_TRUE(again.streams.empty());
  EXPECT_EQ(run.listener.rejected(), 1);
}

TEST(DataStreamTest, ConnectorTriesTheNextAddress) {
  ListenerRun run;
  std::uint16_t port = run.listener.port();
  run.Start(1);
  // 127.0.0.2 has no listener on this port; the connector moves on to 127.0.0.1.
  ConnectResult r = ConnectDataStreams({"127.0.0.2", "127.0.0.1"}, port, run.secret, run.session, 1,
                                       Cipher::kAes128Gcm, {}, 5s);
  EXPECT_EQ(r.streams.size(), 1u) << r.last_error;
}

}  // namespace
}  // namespace braid
