// The feed between a sink that forwards and the source that follows it (a hop
// of a chain): SinkFiles::WaitForForward's answers on the fake file system,
// and the feed itself over a real Unix socket, ForwardFeed at one end and
// FollowFeed at the other, in one process.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "braid/error.h"
#include "fake_sink_file_system.h"
#include "proto/control_message.h"
#include "session/feed_socket.h"
#include "sink/forward_feed.h"
#include "sink/sink_files.h"
#include "sink_entry.h"
#include "source/follow_feed.h"
#include "thrown_code.h"

namespace braid {
namespace {

using testing::FakeSinkFileSystem;

class ForwardFeedTest : public ::testing::Test {
 protected:
  /// "dir", "dir/a" of 8 bytes and "dir/b" of 3, into /t.
  ForwardFeedTest()
      : files_({Entry(0, FileKind::kDirectory, "dir"), Entry(1, FileKind::kRegular, "dir/a", 8),
                Entry(2, FileKind::kRegular, "dir/b", 3)},
               TargetPlan{TargetPlan::Mode::kIntoDirectory, "/t"}, "sinkhost", false, fs_) {
    files_.NameEveryFile();
    files_.Prepare(false);
  }
  void Write(std::uint32_t id, std::uint64_t offset, std::uint32_t length, std::uint8_t fill) {
    std::vector<std::uint8_t> data(length, fill);
    files_.CheckBlock(id, offset, length);
    files_.WriteBlock(id, offset, data.data(), length);
  }
  /// Completes, syncs and commits file `id` of `size` bytes.
  void Commit(std::uint32_t id, std::uint64_t size) {
    files_.EndFile(id, size, std::nullopt);
    files_.MakeDurable({id});
    files_.Commit(id, false);
  }

  FakeSinkFileSystem fs_;
  SinkFiles files_;
};

TEST_F(ForwardFeedTest, SaysThePrefixWrittenOnceItPassesWhatTheFollowerHas) {
  Write(1, 4, 4, 'b');  // not from the start: nothing to read in order yet
  std::optional<ForwardState> now;
  std::thread waiter([&] { now = files_.WaitForForward(1, 0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(now.has_value()) << "answered before the file's start arrived";
  Write(1, 0, 4, 'a');
  waiter.join();
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->prefix, 8u);
  EXPECT_FALSE(now->committed);
  EXPECT_FALSE(now->ended);
}

TEST_F(ForwardFeedTest, AFileWholeAndEndedAnswersEvenWithNothingNew) {
  Write(2, 0, 3, 'c');
  files_.EndFile(2, 3, std::nullopt);
  std::optional<ForwardState> now = files_.WaitForForward(2, 3);
  ASSERT_TRUE(now.has_value());
  EXPECT_TRUE(now->ended);
  EXPECT_EQ(now->prefix, 3u);
  Commit(2, 3);
  now = files_.WaitForForward(2, 3);
  ASSERT_TRUE(now.has_value());
  EXPECT_TRUE(now->committed);
}

TEST_F(ForwardFeedTest, AComparedFileSaysNothingUntilCommitted) {
  fs_.AddFile("/t/dir/b", "old");
  files_.MarkCompared(2, 3);
  files_.RecordSame(2, 0, 3);  // its bytes are the old version's, not in a partial file
  std::optional<ForwardState> now;
  std::thread waiter([&] { now = files_.WaitForForward(2, 0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_FALSE(now.has_value());
  Commit(2, 3);
  waiter.join();
  ASSERT_TRUE(now.has_value());
  EXPECT_TRUE(now->committed);
  EXPECT_EQ(now->prefix, 3u);
}

TEST_F(ForwardFeedTest, AbortEndsAWaitAndADirectoryIsRefused) {
  std::optional<ForwardState> now{ForwardState{}};
  std::thread waiter([&] { now = files_.WaitForForward(1, 0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  files_.Abort();
  waiter.join();
  EXPECT_FALSE(now.has_value());
  EXPECT_EQ(ThrownCode([&] { files_.WaitForForward(0, 0); }), ErrorCode::kProtocol);
  EXPECT_EQ(ThrownCode([&] { files_.WaitForForward(9, 0); }), ErrorCode::kProtocol);
}

TEST_F(ForwardFeedTest, AFollowerGetsThePlanAndTheListThenEachFileAsItArrives) {
  const std::string token = NewFeedToken();
  ForwardFeed feed(files_, token, "sinkhost");
  FollowFeed follow(token, "sinkhost");
  SourceList list = follow.TakeList();
  ASSERT_EQ(list.entries.size(), 3u);
  ASSERT_TRUE(list.followed.has_value());
  EXPECT_EQ(list.File(1).local_path, "/t/dir/a");
  EXPECT_EQ(list.File(2).entry.size, 3u);

  FollowedFile got;
  std::thread reader([&] { got = follow.WaitFor(1, 8, false); });
  Write(1, 0, 4, 'a');
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Write(1, 4, 4, 'a');
  reader.join();
  EXPECT_EQ(got.prefix, 8u);
  EXPECT_FALSE(got.committed);

  Write(2, 0, 3, 'c');
  Commit(2, 3);
  EXPECT_TRUE(follow.WaitFor(2, 3, true).committed);
  // Once the sink says all is in place, nothing more is asked.
  Commit(1, 8);
  feed.Finish();
  EXPECT_TRUE(follow.WaitFor(1, 8, true).committed);
}

TEST_F(ForwardFeedTest, AFailedSinkIsNamedToItsFollower) {
  const std::string token = NewFeedToken();
  ForwardFeed feed(files_, token, "sinkhost");
  FollowFeed follow(token, "nexthost");
  std::thread failing([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    files_.Abort();
    feed.Fail("disk full");
  });
  std::string why;
  try {
    follow.WaitFor(1, 8, false);
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kPeerLost);
    why = e.what();
  }
  failing.join();
  EXPECT_NE(why.find("sinkhost: disk full"), std::string::npos) << why;
}

TEST_F(ForwardFeedTest, NoFeedOfThatTokenIsRefused) {
  const std::string token = NewFeedToken();
  ForwardFeed feed(files_, token, "sinkhost");
  EXPECT_EQ(ThrownCode([&] { FollowFeed wrong(NewFeedToken(), "h"); }), ErrorCode::kPeerLost);
  // The right one still works after a miss.
  FollowFeed right(token, "h");
  EXPECT_EQ(right.TakeList().entries.size(), 3u);
}

}  // namespace
}  // namespace braid
