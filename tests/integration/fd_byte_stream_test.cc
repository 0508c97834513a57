// FdByteStream (transport): the one ByteStream over descriptors, on real
// socketpairs and pipes: the loops, the end of a stream and a vanished peer.

#include "transport/fd_byte_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "braid/error.h"
#include "braid/unique_fd.h"
#include "support/byte_stream_text.h"

namespace braid {
namespace {

using testing::ReadToEnd;

const FdStreamWords kWords{"reading from the test peer failed",
                           "the test peer stopped taking input"};

struct SocketPair {
  SocketPair() {
    int sv[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    ours.Reset(sv[0]);
    theirs.Reset(sv[1]);
  }
  UniqueFd ours;
  UniqueFd theirs;
};

/// The message of the BraidError(kPeerLost) `fn` throws; fails the test otherwise.
template <typename Fn>
std::string PeerLostMessage(Fn fn) {
  try {
    fn();
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kPeerLost);
    return e.what();
  }
  ADD_FAILURE() << "no BraidError thrown";
  return "";
}

TEST(FdByteStreamTest, CarriesBytesBothWaysOverAnOwnedSocket) {
  SocketPair pair;
  FdByteStream ours(std::move(pair.ours), kWords);
  FdByteStream theirs(pair.theirs.get(), pair.theirs.get(), kWords);
  const std::string big(1 << 20, 'b');  // more than a socket buffer: WriteAll loops
  std::thread writer([&] {
    ours.WriteAll(big.data(), big.size());
    ours.CloseWrite();
  });
  EXPECT_EQ(ReadToEnd(theirs), big);
  writer.join();
  theirs.WriteAll("back", 4);  // half-closed: the other way still works
  char buf[8] = {};
  EXPECT_EQ(ours.ReadSome(buf, sizeof buf), 4u);
  EXPECT_EQ(std::string(buf, 4), "back");
}

TEST(FdByteStreamTest, AResetPeerIsTheEndOfTheStream) {
  SocketPair pair;
  FdByteStream ours(std::move(pair.ours), kWords);
  ours.WriteAll("unread", 6);
  pair.theirs.Reset();  // closed with unread data: we get ECONNRESET
  char buf[8];
  EXPECT_EQ(ours.ReadSome(buf, sizeof buf), 0u);
}

TEST(FdByteStreamTest, WritingToAVanishedPeerIsPeerLostNotSigpipe) {
  SocketPair pair;
  FdByteStream ours(std::move(pair.ours), kWords);
  pair.theirs.Reset();
  const std::string message = PeerLostMessage([&] { ours.WriteAll("x", 1); });
  EXPECT_NE(message.find("the test peer stopped taking input: "), std::string::npos) << message;
}

TEST(FdByteStreamTest, AReadErrorNamesThePeer) {
  UniqueFd dir(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(dir.valid());
  FdByteStream stream(dir.get(), dir.get(), kWords);
  char buf[8];
  const std::string message = PeerLostMessage([&] { stream.ReadSome(buf, sizeof buf); });
  EXPECT_EQ(message.rfind("reading from the test peer failed: ", 0), 0u) << message;
}

TEST(FdByteStreamTest, WritesToAPipeAndClosesItAtCloseWrite) {
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  UniqueFd read_end(p[0]);
  SocketPair unused;  // a read side; only the write side is a pipe
  FdByteStream stream(unused.ours.get(), p[1], kWords);
  stream.WriteAll("piped", 5);
  stream.CloseWrite();  // a pipe has no half-close: closed
  FdByteStream reader(read_end.get(), -1, kWords);
  EXPECT_EQ(ReadToEnd(reader), "piped");
  const std::string message = PeerLostMessage([&] { stream.WriteAll("late", 4); });
  EXPECT_NE(message.find("the test peer stopped taking input: "), std::string::npos) << message;
}

TEST(FdByteStreamTest, ShutdownEndsABlockedRead) {
  SocketPair pair;
  FdByteStream ours(std::move(pair.ours), kWords);
  std::size_t got = 1;
  std::thread reader([&] {
    char buf[8];
    got = ours.ReadSome(buf, sizeof buf);
  });
  ours.Shutdown();  // before or during the read: it returns 0 either way
  reader.join();
  EXPECT_EQ(got, 0u);
  char buf[8];
  FdByteStream theirs(pair.theirs.get(), pair.theirs.get(), kWords);
  EXPECT_EQ(theirs.ReadSome(buf, sizeof buf), 0u);  // the peer sees the end too
}

TEST(FdByteStreamTest, CloseEndsTheStreamForThePeer) {
  SocketPair pair;
  FdByteStream ours(std::move(pair.ours), kWords);
  ours.Close();
  FdByteStream theirs(pair.theirs.get(), pair.theirs.get(), kWords);
  EXPECT_EQ(ReadToEnd(theirs), "");
}

}  // namespace
}  // namespace braid
