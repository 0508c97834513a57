// The everyday features through the real binary: compression, ordered
// writes, symbolic links, FIFOs and owners.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "braid/error.h"
#include "support/mini_json.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::RunBraid;
using testing::RunProcess;
using testing::SameContents;
using testing::WritePatternFile;

class FeaturesTest : public testing::SshdTest {};

/// "12.34 MiB on the wire" from the -v summary, in bytes.
double WireBytes(const std::string& err) {
  std::smatch m;
  static const std::regex kWire(R"(([0-9.]+) (B|KiB|MiB|GiB) on the wire)");
  if (!std::regex_search(err, m, kWire)) return -1;
  double units[] = {1, 1024, 1024.0 * 1024, 1024.0 * 1024 * 1024};
  int unit = m[2] == "B" ? 0 : m[2] == "KiB" ? 1 : m[2] == "MiB" ? 2 : 3;
  return std::stod(m[1]) * units[unit];
}

TEST_F(FeaturesTest, CompressionShrinksCompressibleDataAndCostsLittleOnRandomData) {
  std::string text = dir + "/text";
  {
    std::ofstream out(text);
    for (int i = 0; i < 400000; ++i)
      out << "line " << i % 1000 << " of a log that repeats itself\n";
  }
  auto r = RunBraid({"-v", "-c", text, Remote(dir + "/text-copy")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(text, dir + "/text-copy"));
  double size = static_cast<double>(std::filesystem::file_size(text));
  double wire = WireBytes(r.err);
  ASSERT_GT(wire, 0) << r.err;
  EXPECT_LT(wire, size / 4) << r.err;

  // --json shows it too: the streams carried far fewer bytes than arrived.
  auto j = RunBraid({"--json", "-c", "-f", text, Remote(dir + "/text-copy")});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  testing::JsonValue doc = testing::JsonReader::Parse(j.out);
  double streamed = 0;
  for (const auto& st : doc["end"]["streams"].array) streamed += st["bytes"].number;
  EXPECT_EQ(doc["end"]["bytes"].number, size);
  EXPECT_GT(streamed, 0);
  EXPECT_LT(streamed, size / 4);

  std::string random = dir + "/random";
  WritePatternFile(random, 16u << 20, 77);
  auto rr = RunBraid({"-v", "--compress=6", random, Remote(dir + "/random-copy")});
  ASSERT_EQ(rr.exit_code, 0) << rr.err;
  EXPECT_TRUE(SameContents(random, dir + "/random-copy"));
  EXPECT_LE(WireBytes(rr.err), 1.05 * (16u << 20)) << rr.err;
}

TEST_F(FeaturesTest, CompressionLevelOutOfRangeIsAUsageError) {
  auto r = RunBraid({"--compress=12", "a", "b"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
}

TEST_F(FeaturesTest, OrderedWritesToFilesOfATree) {
  std::string tree = dir + "/tree";
  std::filesystem::create_directories(tree + "/sub");
  WritePatternFile(tree + "/a", 3u << 20, 1);
  WritePatternFile(tree + "/empty", 0, 2);
  WritePatternFile(tree + "/sub/b", (5u << 20) + 17, 3);
  auto r = RunBraid({"-o", "-r", "-s", "8", "-B", "64K", tree, Remote(dir + "/ordered")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto diff = RunProcess({"diff", "-r", tree, dir + "/ordered"});
  EXPECT_EQ(diff.exit_code, 0) << diff.out;
}

TEST_F(FeaturesTest, SymlinksAreCopiedAsLinksAndFollowedWithL) {
  std::string tree = dir + "/links";
  std::filesystem::create_directories(tree + "/real");
  WritePatternFile(tree + "/real/file", 1000, 4);
  std::filesystem::create_symlink("real/file", tree + "/to-file");
  std::filesystem::create_symlink("/etc/hostname", tree + "/outside");
  std::filesystem::create_symlink("..", tree + "/real/loop");

  auto r = RunBraid({"-r", tree, Remote(dir + "/as-links")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/as-links/to-file"));
  EXPECT_EQ(std::filesystem::read_symlink(dir + "/as-links/outside"), "/etc/hostname");
  EXPECT_TRUE(std::filesystem::is_symlink(dir + "/as-links/real/loop"));

  auto l = RunBraid({"-r", "-L", tree, Remote(dir + "/followed")});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_FALSE(std::filesystem::is_symlink(dir + "/followed/to-file"));
  EXPECT_TRUE(SameContents(tree + "/real/file", dir + "/followed/to-file"));
  // The loop back to the top is entered once, not forever.
  EXPECT_NE(l.err.find("link loop"), std::string::npos) << l.err;
}

TEST_F(FeaturesTest, FifoAsSource) {
  std::string fifo = dir + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string src = dir + "/fifo-data";
  WritePatternFile(src, (3u << 20) + 5, 8);
  std::thread writer([&] {
    std::ifstream in(src, std::ios::binary);
    std::ofstream out(fifo, std::ios::binary);
    out << in.rdbuf();
  });
  auto r = RunBraid({fifo, Remote(dir + "/from-fifo")});
  writer.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(SameContents(src, dir + "/from-fifo"));
}

TEST_F(FeaturesTest, PreserveKeepsOwnerWhenRoot) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give files away";
  std::string src = dir + "/owned";
  WritePatternFile(src, 100, 1);
  ASSERT_EQ(::chown(src.c_str(), 12345, 23456), 0);
  ::chmod(src.c_str(), 0640);
  auto r = RunBraid({"-p", src, Remote(dir + "/owned-copy")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/owned-copy").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 12345u);
  EXPECT_EQ(st.st_gid, 23456u);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

}  // namespace
}  // namespace braid
