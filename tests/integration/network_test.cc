// Who listens and where, over the private sshd on loopback: -z (the source
// listens, the sink connects) for pushes and pulls, -Z (a port range), -4/-6.
// The firewall and multi-homed cases need namespaces: they are in
// tests/testbed/networks_test.sh.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <chrono>
#include <thread>

#include <regex>
#include <vector>

#include "braid/error.h"
#include "support/process_runner.h"
#include "support/sshd_test.h"
#include "support/test_files.h"

namespace braid {
namespace {

using testing::RunBraid;
using testing::SameContents;
using testing::WritePatternFile;

class NetworkTest : public testing::SshdTest {
 protected:
  std::string src = [this] {
    std::string p = dir + "/src.dat";
    WritePatternFile(p, (24u << 20) + 3, 9);
    return p;
  }();
};

/// The port named in -v's "listening on ADDR port N" line, or -1.
int ListeningPort(const std::string& err, const std::string& who) {
  std::smatch m;
  if (!std::regex_search(err, m, std::regex(who + " listening on \\S+ port ([0-9]+)"))) return -1;
  return std::stoi(m[1]);
}

TEST_F(NetworkTest, ReversePushAndPull) {
  auto push = RunBraid({"-v", "-z", src, Remote(dir + "/pushed")});
  ASSERT_EQ(push.exit_code, 0) << push.err;
  EXPECT_GT(ListeningPort(push.err, "source"), 0) << push.err;
  EXPECT_TRUE(SameContents(src, dir + "/pushed"));
  auto pull = RunBraid({"-z", "-s", "3", Remote(dir + "/pushed"), dir + "/pulled"});
  ASSERT_EQ(pull.exit_code, 0) << pull.err;
  EXPECT_TRUE(SameContents(src, dir + "/pulled"));
}

TEST_F(NetworkTest, PortRangeIsHonouredAndABusyRangeIsWaitedFor) {
  auto r = RunBraid({"-v", "-Z", "47000:47020", src, Remote(dir + "/ranged")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int port = ListeningPort(r.err, "sink");
  EXPECT_GE(port, 47000) << r.err;
  EXPECT_LE(port, 47020) << r.err;
  EXPECT_TRUE(SameContents(src, dir + "/ranged"));

  // Another listener holds the only port of a one-port range for a second:
  // the copy waits for it, then listens there. The kernel picks the port, so
  // no other test's connection can hold it already.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);  // braid must not inherit it
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int taken = ntohs(addr.sin_port);
  std::thread release([fd] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    ::close(fd);
  });
  const std::string range = std::to_string(taken) + ":" + std::to_string(taken);
  auto waited = RunBraid({"-v", "-Z", range, src, Remote(dir + "/waited")});
  release.join();
  ASSERT_EQ(waited.exit_code, 0) << waited.err;
  EXPECT_EQ(ListeningPort(waited.err, "sink"), taken) << waited.err;
  EXPECT_TRUE(SameContents(src, dir + "/waited"));
}

TEST_F(NetworkTest, FamilyOptions) {
  auto v4 = RunBraid({"-4", src, Remote(dir + "/v4")});
  ASSERT_EQ(v4.exit_code, 0) << v4.err;
  EXPECT_TRUE(SameContents(src, dir + "/v4"));
  // The fixture's sshd is reached on 127.0.0.1: asking for IPv6 data there
  // with an IPv4 --data-host is a usage error naming the address.
  auto mixed = RunBraid({"-6", "--data-host", "127.0.0.1", src, Remote(dir + "/v6")});
  EXPECT_EQ(mixed.exit_code, ExitCodeFor(ErrorCode::kUsage)) << mixed.err;
  EXPECT_NE(mixed.err.find("not an IPv6 address"), std::string::npos) << mixed.err;
  auto usage = RunBraid({"-4", "-6", src, dir + "/x"});
  EXPECT_EQ(usage.exit_code, ExitCodeFor(ErrorCode::kUsage)) << usage.err;
}

}  // namespace
}  // namespace braid
