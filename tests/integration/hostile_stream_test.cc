// Attacks on the data streams' listener and on a stalled peer: the test plays
// the agent between a real source and a real sink server (`braid --serve`
// children), and meanwhile connects its own streams with a wrong HMAC, a
// replayed handshake and a flood of strangers; and plays a sink that accepts
// a stream and never reads it.

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <thread>

#include "security/crypto/stream_handshake.h"
#include "support/background_braid.h"
#include "support/fake_agent.h"
#include "support/hostile_fixture.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

using Clock = std::chrono::steady_clock;

/// A real source and a real sink, driven by the test up to SinkReady.
struct RealEnds {
  std::unique_ptr<ServeChild> source;
  std::unique_ptr<ServeChild> sink;
  TransferParams params;
  SinkReady ready;
};

class HostileStreamTest : public HostileTest {
 protected:
  std::string logs() const { return guard_.root() + "/logs"; }

  bool Prepare(RealEnds& ends, const std::string& src, TransferParams params) {
    ends.params = params;
    ends.source = std::make_unique<ServeChild>(logs());
    ends.sink = std::make_unique<ServeChild>(logs());
    if (!ends.source->Greet() || !ends.sink->Greet()) return false;
    std::vector<FileEntry> list = OpenSource(*ends.source, {src});
    if (list.empty()) return false;
    std::optional<ErrorMessage> error;
    std::optional<SinkReady> ready =
        OpenSink(*ends.sink, list, SinkOpenFor(guard_.target() + "/", params), &error);
    if (!ready) return false;
    ends.ready = *ready;
    return true;
  }

  /// SourceStart; then both ends' Done. The sink's Done, or nullopt.
  std::optional<Done> Finish(RealEnds& ends) {
    ends.source->control().Send(StartFor(ends.ready.port, ends.params, ends.ready.resume));
    std::optional<ErrorMessage> error;
    std::optional<Done> sink_done = ends.sink->control().Await<Done>(&error);
    EXPECT_TRUE(sink_done) << (error ? error->message : ends.sink->err());
    std::optional<Done> source_done = ends.source->control().Await<Done>(&error);
    EXPECT_TRUE(source_done) << (error ? error->message : ends.source->err());
    for (ServeChild* end : {ends.source.get(), ends.sink.get()}) {
      end->control().Send(Bye{});
      EXPECT_EQ(end->Wait(10), 0) << end->err();
    }
    return source_done ? sink_done : std::nullopt;
  }
};

TEST_F(HostileStreamTest, WrongHmacAndReplayedHandshakeAreRejected) {
  std::string src = guard_.root() + "/src.bin";
  WritePatternFile(src, 8u << 20, 7);
  guard_.Rearm();
  RealEnds ends;
  ASSERT_TRUE(Prepare(ends, src, TestParams(2)));
  const TransferParams& p = ends.params;
  const std::uint16_t port = ends.ready.port;

  // A connector that knows the session id but not the secret: wrong proof.
  UniqueFd wrong = ConnectLoopback(port);
  ASSERT_TRUE(wrong.valid());
  EXPECT_FALSE(ConnectorHandshake(wrong.get(), p.secret, p.session, 0,
                                  std::vector<std::uint8_t>(kProofSize, 0x5a)));
  // A transcript recorded from another connection, replayed.
  UniqueFd replay = ConnectLoopback(port);
  ASSERT_TRUE(replay.valid());
  EXPECT_FALSE(ReplayHandshake(replay.get(), RecordHandshake(p.secret, p.session, 1)));
  // Another secret: the listener's own MAC already fails the connector's check.
  UniqueFd stranger = ConnectLoopback(port);
  ASSERT_TRUE(stranger.valid());
  EXPECT_FALSE(ConnectorHandshake(stranger.get(), RandomArray<kSecretSize>(), p.session, 0));
  // The right secret, but a stream index the transfer does not have.
  UniqueFd surplus = ConnectLoopback(port);
  ASSERT_TRUE(surplus.valid());
  EXPECT_FALSE(ConnectorHandshake(surplus.get(), p.secret, p.session, 5));

  // None of them took a stream's place: both real streams connect and the copy completes.
  std::optional<Done> done = Finish(ends);
  ASSERT_TRUE(done);
  EXPECT_EQ(done->streams, 2);
  std::string why;
  EXPECT_TRUE(SameContents(src, guard_.target() + "/src.bin", &why)) << why;
  ExpectNothingOutside();
}

/// Opens `count` connections to `port`: silent ones, junk, and HELLOs for
/// another session. Refused connections (the listener closed) are fine.
std::vector<UniqueFd> Flood(std::uint16_t port, int count) {
  std::vector<UniqueFd> held;
  for (int i = 0; i < count; ++i) {
    UniqueFd fd = ConnectLoopback(port);
    if (!fd.valid()) continue;
    if (i % 3 == 1) {
      std::vector<std::uint8_t> junk(kHelloSize, static_cast<std::uint8_t>(i));
      WriteFully(fd.get(), junk.data(), junk.size());
    } else if (i % 3 == 2) {
      HandshakeConnector other(RandomArray<kSecretSize>(), RandomArray<kSessionIdSize>(), 0,
                               RandomArray<kNonceSize>());
      std::vector<std::uint8_t> hello = other.Hello();
      WriteFully(fd.get(), hello.data(), hello.size());
    }
    held.push_back(std::move(fd));
  }
  return held;
}

TEST_F(HostileStreamTest, FloodOfStrangersDoesNotStopARealTransfer) {
  std::string src = guard_.root() + "/big.bin";
  WritePatternFile(src, 200u << 20, 11);
  guard_.Rearm();
  RealEnds ends;
  TransferParams p = TestParams(4, 1u << 20);
  p.rate = 200'000'000;  // about a second, so the flood overlaps the copy
  ASSERT_TRUE(Prepare(ends, src, p));
  // 150 strangers hold connections open while the real streams connect, and
  // 50 more arrive during the copy.
  std::vector<UniqueFd> held = Flood(ends.ready.port, 150);
  EXPECT_GT(held.size(), 100u);
  std::thread late([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Flood(ends.ready.port, 50);
  });
  std::optional<Done> done = Finish(ends);
  late.join();
  ASSERT_TRUE(done);
  EXPECT_EQ(done->streams, 4);
  std::string why;
  EXPECT_TRUE(SameContents(src, guard_.target() + "/big.bin", &why)) << why;
  ExpectNothingOutside();
}

TEST_F(HostileStreamTest, FloodDuringARealAgentCopy) {
  // The real agent between real ends, slowed with -x; 200 strangers connect
  // to the port it announces (-v) while the copy runs.
  std::string src = guard_.root() + "/big.bin";
  WritePatternFile(src, 200u << 20, 13);
  guard_.Rearm();
  BackgroundBraid braid({"-v", "-s", "4", "-x", "100M", src, guard_.target() + "/"}, logs());
  const std::regex port_re("listening on [^ ]+ port ([0-9]+)");
  std::uint16_t port = 0;
  ASSERT_TRUE(WaitFor(
      [&] {
        std::string err = braid.err();
        std::smatch m;
        if (!std::regex_search(err, m, port_re)) return false;
        port = static_cast<std::uint16_t>(std::stoi(m[1].str()));
        return true;
      },
      10))
      << braid.err();
  int opened = 0;
  for (int round = 0; round < 4; ++round) {
    opened += static_cast<int>(Flood(port, 50).size());
  }
  // The flood came while the copy ran: the file is not in place yet.
  EXPECT_FALSE(Exists(guard_.target() + "/big.bin"));
  EXPECT_EQ(braid.Wait(60), 0) << braid.err();
  std::string why;
  EXPECT_TRUE(SameContents(src, guard_.target() + "/big.bin", &why)) << why;
  ExpectNothingOutside();
  RecordProperty("flood_connections_accepted_by_kernel", opened);
}

TEST_F(HostileStreamTest, SinkThatNeverReadsCostsTheSourceBoundedMemory) {
  std::string src = guard_.root() + "/big.bin";
  WritePatternFile(src, 128u << 20, 17);
  guard_.Rearm();
  ServeChild source(logs());
  ASSERT_TRUE(source.Greet());
  ASSERT_FALSE(OpenSource(source, {src}).empty());
  long baseline = ResidentKib(source.pid());
  TransferParams p = TestParams(1, 1u << 20);
  FakeListener listener;
  source.control().Send(StartFor(listener.port(), p));
  UniqueFd stream = listener.Accept(p.secret, p.session, 1, 10);
  ASSERT_TRUE(stream.valid());
  // We never read: the source must block with a bounded number of buffers
  // (2 x streams + 4 blocks), not read the whole 128 MiB file into memory.
  long peak = baseline;
  for (int i = 0; i < 30; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    peak = std::max(peak, ResidentKib(source.pid()));
  }
  EXPECT_TRUE(source.running());
  EXPECT_LT(peak - baseline, 48 * 1024) << "baseline " << baseline << " KiB, peak " << peak;
  // An Abort ends it promptly even with its sender blocked on a full socket.
  auto start = Clock::now();
  source.control().Send(Abort{"test over"});
  EXPECT_EQ(source.Wait(10), kServeEndedWithoutBye) << source.err();
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5);
  ExpectNothingOutside();
}

}  // namespace
}  // namespace braid::testing
