// What a real source and sink server (`braid --serve` children, driven by the
// test as the agent) count in Progress and Done: every file of a small tree
// copied is a file done at each end. The agent's stall watch takes the sink's
// files_done as progress (docs/errors.md, "Stalls"), so it must move.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/fake_agent.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid::testing {
namespace {

/// What the sink said from SourceStart to its Done.
struct SinkTally {
  std::optional<Done> done;
  std::optional<ErrorMessage> error;
  std::uint64_t last_progress_files = 0;  ///< files_done of the last Progress before Done
  std::size_t file_dones = 0;             ///< FileDone messages
};

SinkTally ListenToSink(ServeChild& sink) {
  SinkTally t;
  for (;;) {
    std::optional<ControlMessage> m = sink.control().Receive();
    if (!m) return t;
    if (auto* p = std::get_if<Progress>(&*m)) t.last_progress_files = p->files_done;
    if (std::holds_alternative<FileDone>(*m)) ++t.file_dones;
    if (auto* e = std::get_if<ErrorMessage>(&*m)) {
      t.error = *e;
      return t;
    }
    if (auto* d = std::get_if<Done>(&*m)) {
      t.done = *d;
      return t;
    }
  }
}

/// The ends' logs and the tree live in the test's scratch directory.
class ServerCountsTest : public SshdTest {};

TEST_F(ServerCountsTest, EveryCopiedFileIsCountedAtBothEnds) {
  const std::string& root = dir;
  const std::string target = root + "/target";
  for (const std::string& d : {target, root + "/logs"}) {
    ASSERT_EQ(::mkdir(d.c_str(), 0755), 0) << d;
  }
  // Four files: more than one block, less than one, empty, and one deeper down.
  const std::vector<std::pair<std::string, std::uint64_t>> files = {
      {"big.bin", 200000}, {"a/small.txt", 10}, {"a/empty", 0}, {"a/deep/mid.bin", 70000}};
  std::vector<TreeEntry> tree{TreeDirectory("empty_dir")};
  for (const auto& [name, size] : files) tree.push_back(TreeFile(name, size));
  const std::string src = MakeTree(root + "/tree", tree);

  ServeChild source(root + "/logs");
  ServeChild sink(root + "/logs");
  ASSERT_TRUE(source.Greet()) << source.err();
  ASSERT_TRUE(sink.Greet()) << sink.err();
  std::vector<FileEntry> list = OpenSource(source, {src});
  ASSERT_FALSE(list.empty()) << source.err();
  const TransferParams params = TestParams(2);
  std::optional<ErrorMessage> error;
  std::optional<SinkReady> ready = OpenSink(sink, list, SinkOpenFor(target + "/", params), &error);
  ASSERT_TRUE(ready) << (error ? error->message : sink.err());
  source.control().Send(StartFor(ready->port, params, ready->resume));

  SinkTally tally = ListenToSink(sink);
  ASSERT_TRUE(tally.done) << (tally.error ? tally.error->message : sink.err());
  std::optional<Done> source_done = source.control().Await<Done>(&error);
  ASSERT_TRUE(source_done) << (error ? error->message : source.err());

  EXPECT_EQ(tally.file_dones, files.size());
  EXPECT_EQ(tally.done->files, files.size());
  EXPECT_EQ(tally.last_progress_files, files.size());
  EXPECT_EQ(source_done->files, files.size());
  for (const auto& [name, size] : files) {
    std::string why;
    EXPECT_TRUE(SameContents(src + "/" + name, target + "/tree/" + name, &why)) << why;
  }
  for (ServeChild* end : {&source, &sink}) {
    end->control().Send(Bye{});
    EXPECT_EQ(end->Wait(10), 0) << end->err();
  }
}

}  // namespace
}  // namespace braid::testing
