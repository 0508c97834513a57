#include "proto/control_channel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "braid/byte_stream.h"
#include "braid/error.h"
#include "braid/wire.h"

namespace braid {
namespace {

using Bytes = std::vector<std::uint8_t>;

/// A loopback ByteStream over a byte buffer: what is written can be read back.
/// ReadSome hands out 1, 2 or 3 bytes at a time so the channel must reassemble.
class FakeStream : public ByteStream {
 public:
  FakeStream() = default;
  explicit FakeStream(Bytes contents) : data_(std::move(contents)) {}
  /// `whole`: each read hands out all it may, as a pipe holding a burst does.
  FakeStream(Bytes contents, bool whole) : data_(std::move(contents)), whole_(whole) {}

  std::size_t ReadSome(void* buf, std::size_t n) override {
    std::lock_guard lock(mutex_);
    ++reads_;
    if (n == 0 || pos_ == data_.size()) return 0;
    std::size_t chunk = whole_ ? n : 1 + (reads_ % 3);
    chunk = std::min({chunk, n, data_.size() - pos_});
    std::memcpy(buf, data_.data() + pos_, chunk);
    pos_ += chunk;
    return chunk;
  }
  void WriteAll(const void* buf, std::size_t n) override {
    ++writes_;
    const auto* p = static_cast<const std::uint8_t*>(buf);
    // One byte at a time, yielding, so unserialized writers would interleave.
    for (std::size_t i = 0; i < n; ++i) {
      {
        std::lock_guard lock(mutex_);
        data_.push_back(p[i]);
      }
      if (i % 64 == 0) std::this_thread::yield();
    }
  }
  void CloseWrite() override { closed_ = true; }

  Bytes data() const {
    std::lock_guard lock(mutex_);
    return data_;
  }
  std::size_t unread() const {
    std::lock_guard lock(mutex_);
    return data_.size() - pos_;
  }
  std::size_t reads() const { return reads_; }
  std::size_t writes() const { return writes_; }

 private:
  mutable std::mutex mutex_;
  Bytes data_;
  std::size_t pos_ = 0;
  std::size_t reads_ = 0;
  std::atomic<std::size_t> writes_{0};
  bool closed_ = false;
  bool whole_ = false;
};

/// u32 big-endian length followed by `body`.
Bytes Framed(const Bytes& body) {
  WireWriter w;
  w.U32(static_cast<std::uint32_t>(body.size()));
  w.Bytes(body);
  return w.Take();
}

ErrorCode ReceiveError(ControlChannel& channel) {
  try {
    auto m = channel.Receive();
    ADD_FAILURE() << (m ? std::string("received a ") + MessageName(*m) : "clean end of stream");
  } catch (const BraidError& e) {
    return e.code();
  }
  return ErrorCode::kOk;
}

TEST(ControlChannelTest, SendFramesWithBigEndianLength) {
  FakeStream stream;
  ControlChannel channel(stream);
  channel.Send(Warning{"hi"});
  Bytes body = EncodeMessage(Warning{"hi"});
  EXPECT_EQ(stream.data(), Framed(body));
  Bytes d = stream.data();
  ASSERT_GE(d.size(), 4u);
  EXPECT_EQ(d[0], 0);
  EXPECT_EQ(d[1], 0);
  EXPECT_EQ(d[2], 0);
  EXPECT_EQ(d[3], body.size());
}

TEST(ControlChannelTest, SeveralMessagesRoundTripThroughSmallReads) {
  FakeStream stream;
  ControlChannel channel(stream);
  channel.Send(Hello{kControlMagic, kProtocolVersion, BraidVersion(), "user@example"});
  channel.Send(Progress{123456789, 42, 8, {}, 0, "", ""});
  channel.Send(Bye{});
  FileList list;
  list.last = true;
  FileEntry e;
  e.id = 7;
  e.path = "dir/file";
  e.size = 99;
  list.entries.push_back(e);
  channel.Send(list);
  channel.Send(ErrorMessage{ErrorCode::kIntegrity, "checksum mismatch"});

  auto m1 = channel.Receive();
  ASSERT_TRUE(m1.has_value());
  ASSERT_TRUE(std::holds_alternative<Hello>(*m1));
  EXPECT_EQ(std::get<Hello>(*m1).label, "user@example");

  auto m2 = channel.Receive();
  ASSERT_TRUE(m2.has_value());
  ASSERT_TRUE(std::holds_alternative<Progress>(*m2));
  EXPECT_EQ(std::get<Progress>(*m2).bytes, 123456789u);
  EXPECT_EQ(std::get<Progress>(*m2).files_done, 42u);
  EXPECT_EQ(std::get<Progress>(*m2).streams, 8);

  auto m3 = channel.Receive();
  ASSERT_TRUE(m3.has_value());
  EXPECT_TRUE(std::holds_alternative<Bye>(*m3));

  auto m4 = channel.Receive();
  ASSERT_TRUE(m4.has_value());
  ASSERT_TRUE(std::holds_alternative<FileList>(*m4));
  const auto& got = std::get<FileList>(*m4);
  EXPECT_TRUE(got.last);
  ASSERT_EQ(got.entries.size(), 1u);
  EXPECT_EQ(got.entries[0].id, 7u);
  EXPECT_EQ(got.entries[0].path, "dir/file");
  EXPECT_EQ(got.entries[0].size, 99u);

  auto m5 = channel.Receive();
  ASSERT_TRUE(m5.has_value());
  ASSERT_TRUE(std::holds_alternative<ErrorMessage>(*m5));
  EXPECT_EQ(std::get<ErrorMessage>(*m5).code, ErrorCode::kIntegrity);
  EXPECT_EQ(std::get<ErrorMessage>(*m5).message, "checksum mismatch");

  EXPECT_FALSE(channel.Receive().has_value());
  EXPECT_EQ(stream.unread(), 0u);
  // Reads were really split: far more ReadSome calls than messages.
  EXPECT_GT(stream.reads(), 20u);
}

TEST(ControlChannelTest, ABurstOfSmallMessagesCostsFewReads) {
  Bytes burst;
  for (std::uint32_t i = 0; i < 1000; ++i) {
    Bytes one = Framed(EncodeMessage(Warning{"file " + std::to_string(i)}));
    burst.insert(burst.end(), one.begin(), one.end());
  }
  FakeStream stream(burst, /*whole=*/true);
  ControlChannel channel(stream);
  for (std::uint32_t i = 0; i < 1000; ++i) {
    auto m = channel.Receive();
    ASSERT_TRUE(m.has_value()) << i;
    ASSERT_TRUE(std::holds_alternative<Warning>(*m));
    EXPECT_EQ(std::get<Warning>(*m).message, "file " + std::to_string(i));
  }
  EXPECT_FALSE(channel.Receive().has_value());
  // About 15 KB: one read, or two where a read ends inside a message, and the end.
  EXPECT_LE(stream.reads(), 3u);
}

TEST(ControlChannelTest, ABatchIsOneWriteAndArrivesInOrder) {
  FakeStream stream;
  ControlChannel channel(stream);
  std::vector<ControlMessage> batch;
  for (std::uint32_t i = 0; i < 500; ++i) {
    FileDone done;
    done.id = i;
    done.size = i * 7u;
    done.final_path = "/data/run/f" + std::to_string(i);
    batch.emplace_back(done);
  }
  channel.Send(batch);
  EXPECT_EQ(stream.writes(), 1u);
  for (std::uint32_t i = 0; i < 500; ++i) {
    auto m = channel.Receive();
    ASSERT_TRUE(m.has_value()) << i;
    ASSERT_TRUE(std::holds_alternative<FileDone>(*m)) << i;
    EXPECT_EQ(std::get<FileDone>(*m).id, i);
    EXPECT_EQ(std::get<FileDone>(*m).final_path, "/data/run/f" + std::to_string(i));
  }
  EXPECT_FALSE(channel.Receive().has_value());
}

TEST(ControlChannelTest, LargeMessageIsReassembled) {
  FakeStream stream;
  ControlChannel channel(stream);
  std::string text(kMaxTextLength, 'x');
  for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i % 26);
  channel.Send(Warning{text});
  auto m = channel.Receive();
  ASSERT_TRUE(m.has_value());
  ASSERT_TRUE(std::holds_alternative<Warning>(*m));
  EXPECT_EQ(std::get<Warning>(*m).message, text);
}

TEST(ControlChannelTest, CleanEndBeforeAnyMessageIsNullopt) {
  FakeStream stream;
  ControlChannel channel(stream);
  EXPECT_FALSE(channel.Receive().has_value());
  EXPECT_FALSE(channel.Receive().has_value());
}

TEST(ControlChannelTest, CleanEndBetweenMessagesIsNullopt) {
  Bytes wire = Framed(EncodeMessage(Bye{}));
  Bytes second = Framed(EncodeMessage(Abort{"stop"}));
  wire.insert(wire.end(), second.begin(), second.end());
  FakeStream stream(wire);
  ControlChannel channel(stream);
  auto a = channel.Receive();
  ASSERT_TRUE(a.has_value());
  EXPECT_TRUE(std::holds_alternative<Bye>(*a));
  auto b = channel.Receive();
  ASSERT_TRUE(b.has_value());
  ASSERT_TRUE(std::holds_alternative<Abort>(*b));
  EXPECT_EQ(std::get<Abort>(*b).reason, "stop");
  EXPECT_FALSE(channel.Receive().has_value());
}

TEST(ControlChannelTest, EndInsideLengthPrefixThrowsProtocol) {
  Bytes full = Framed(EncodeMessage(Bye{}));
  for (std::size_t n = 1; n < 4; ++n) {
    FakeStream stream(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
    ControlChannel channel(stream);
    EXPECT_EQ(ReceiveError(channel), ErrorCode::kProtocol) << n;
  }
}

TEST(ControlChannelTest, EndInsideBodyThrowsProtocol) {
  Bytes full = Framed(EncodeMessage(Warning{"a message that is long enough"}));
  for (std::size_t n = 4; n < full.size(); ++n) {
    FakeStream stream(Bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n)));
    ControlChannel channel(stream);
    EXPECT_EQ(ReceiveError(channel), ErrorCode::kProtocol) << n;
  }
}

TEST(ControlChannelTest, EndInsideSecondMessageThrowsProtocol) {
  Bytes wire = Framed(EncodeMessage(Bye{}));
  Bytes second = Framed(EncodeMessage(Warning{"cut"}));
  wire.insert(wire.end(), second.begin(), second.end() - 1);
  FakeStream stream(wire);
  ControlChannel channel(stream);
  auto first = channel.Receive();
  ASSERT_TRUE(first.has_value());
  EXPECT_TRUE(std::holds_alternative<Bye>(*first));
  EXPECT_EQ(ReceiveError(channel), ErrorCode::kProtocol);
}

TEST(ControlChannelTest, LengthPrefixZeroThrowsProtocol) {
  FakeStream stream(Bytes{0, 0, 0, 0, 0, 13});
  ControlChannel channel(stream);
  EXPECT_EQ(ReceiveError(channel), ErrorCode::kProtocol);
}

TEST(ControlChannelTest, LengthPrefixOneThrowsProtocol) {
  FakeStream stream(Bytes{0, 0, 0, 1, 0, 13});
  ControlChannel channel(stream);
  EXPECT_EQ(ReceiveError(channel), ErrorCode::kProtocol);
}

TEST(ControlChannelTest, LengthPrefixTwoIsTheSmallestMessage) {
  FakeStream stream(Bytes{0, 0, 0, 2, 0, static_cast<std::uint8_t>(MessageType::kBye)});
  ControlChannel channel(stream);
  auto m = channel.Receive();
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(std::holds_alternative<Bye>(*m));
}

TEST(ControlChannelTest, LengthPrefixOverMaximumThrowsProtocol) {
  for (std::uint32_t len :
       {static_cast<std::uint32_t>(kMaxControlMessage + 1), 0x7FFFFFFFu, 0xFFFFFFFFu}) {
    WireWriter w;
    w.U32(len);
    w.U16(static_cast<std::uint16_t>(MessageType::kBye));
    FakeStream stream(w.Take());
    ControlChannel channel(stream);
    EXPECT_EQ(ReceiveError(channel), ErrorCode::kProtocol) << len;
  }
}

TEST(ControlChannelTest, LengthPrefixAtMaximumButShortStreamThrowsProtocol) {
  WireWriter w;
  w.U32(static_cast<std::uint32_t>(kMaxControlMessage));
  w.U16(static_cast<std::uint16_t>(MessageType::kBye));
  FakeStream stream(w.Take());
  ControlChannel channel(stream);
  EXPECT_EQ(ReceiveError(channel), ErrorCode::kProtocol);
}

TEST(ControlChannelTest, MalformedBodyThrowsProtocol) {
  // Right length, unknown message type.
  FakeStream stream(Bytes{0, 0, 0, 2, 0xFF, 0xFF});
  ControlChannel channel(stream);
  EXPECT_EQ(ReceiveError(channel), ErrorCode::kProtocol);

  // A body with one byte of trailing garbage inside the frame.
  Bytes body = EncodeMessage(Bye{});
  body.push_back(0);
  FakeStream stream2(Framed(body));
  ControlChannel channel2(stream2);
  EXPECT_EQ(ReceiveError(channel2), ErrorCode::kProtocol);
}

TEST(ControlChannelTest, ConcurrentSendersDoNotInterleave) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 40;
  FakeStream stream;
  ControlChannel channel(stream);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&channel, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Long enough that an unserialized write would be split by the fake.
        channel.Send(Warning{std::to_string(t) + ":" + std::to_string(i) + ":" +
                             std::string(300, static_cast<char>('a' + t))});
      }
    });
  }
  for (auto& th : threads) th.join();

  std::vector<int> next(kThreads, 0);
  int total = 0;
  while (auto m = channel.Receive()) {
    ASSERT_TRUE(std::holds_alternative<Warning>(*m));
    const std::string& text = std::get<Warning>(*m).message;
    std::size_t c1 = text.find(':');
    std::size_t c2 = text.find(':', c1 + 1);
    ASSERT_NE(c2, std::string::npos) << text;
    int t = std::stoi(text.substr(0, c1));
    int i = std::stoi(text.substr(c1 + 1, c2 - c1 - 1));
    ASSERT_GE(t, 0);
    ASSERT_LT(t, kThreads);
    EXPECT_EQ(i, next[static_cast<std::size_t>(t)]) << "thread " << t << " out of order";
    next[static_cast<std::size_t>(t)] = i + 1;
    EXPECT_EQ(text.substr(c2 + 1), std::string(300, static_cast<char>('a' + t)));
    ++total;
  }
  EXPECT_EQ(total, kThreads * kPerThread);
}

}  // namespace
}  // namespace braid
