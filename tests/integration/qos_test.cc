// QoS marking (-q), congestion control (--cc) and the data address (--data-host):
// the socket options on both ends of real data streams, the TOS / traffic class of
// the packets of a real transfer as captured on lo, and the errors for a congestion
// control the kernel does not offer.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "braid/error.h"
#include "security/crypto/session_secret.h"
#include "support/process_runner.h"
#include "support/sshd_fixture.h"
#include "support/test_files.h"
#include "transport/data_connector.h"
#include "transport/data_listener.h"
#include "transport/socket_tuning.h"

namespace braid {
namespace {

using Clock = std::chrono::steady_clock;
using testing::RunBraid;
using testing::RunProcess;

constexpr int kQbss = 0x20;
constexpr std::size_t kTransferBytes = 16u << 20;
/// The two low bits of the TOS byte are ECN's, which the kernel owns.
constexpr int kDscpMask = 0xfc;

// ---------------------------------------------------------------------------
// Socket options on both ends of authenticated streams (no root needed).

struct StreamPair {
  std::vector<AuthenticatedStream> accepted;
  ConnectResult connected;
};

/// Two authenticated streams over loopback `address`, both ends tuned with `tuning`.
StreamPair Connect(const std::string& address, const SocketTuning& tuning) {
  Secret secret = RandomArray<kSecretSize>();
  SessionId session = RandomArray<kSessionIdSize>();
  DataListener listener(address, tuning);
  StreamPair pair;
  std::thread accept([&] {
    listener.Run(secret, session, 2, Cipher::kNone, std::chrono::seconds(20),
                 [&](AuthenticatedStream s) { pair.accepted.push_back(std::move(s)); });
  });
  pair.connected = ConnectDataStreams({address}, listener.port(), secret, session, 2, Cipher::kNone,
                                      tuning, std::chrono::seconds(20));
  accept.join();
  return pair;
}

int TosOf(int fd, bool ipv6) {
  int value = -1;
  socklen_t len = sizeof value;
  int rc = ipv6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &value, &len)
                : getsockopt(fd, IPPROTO_IP, IP_TOS, &value, &len);
  return rc == 0 ? value : -2;
}

std::string CongestionOf(int fd) {
  char name[16] = {};
  socklen_t len = sizeof name;
  if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len) != 0) return "?";
  return std::string(name, strnlen(name, sizeof name));
}

bool Ipv6LoopbackWorks() {
  int fd = ::socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

class SocketTuningTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SocketTuningTest, BothEndsOfEveryStreamAreMarkedAndUseTheAlgorithm) {
  const bool ipv6 = GetParam() == "::1";
  if (ipv6 && !Ipv6LoopbackWorks()) GTEST_SKIP() << "no IPv6 on loopback here";
  // reno is built into every Linux kernel, so this needs no module and no privilege.
  SocketTuning tuning{.window = 0, .tos = kQbss, .congestion_control = "reno"};
  StreamPair pair = Connect(GetParam(), tuning);
  ASSERT_EQ(pair.connected.streams.size(), 2u) << pair.connected.last_error;
  ASSERT_EQ(pair.accepted.size(), 2u);
  for (const auto& s : pair.connected.streams) {
    EXPECT_EQ(TosOf(s.fd.get(), ipv6), kQbss) << "connector " << s.peer;
    EXPECT_EQ(CongestionOf(s.fd.get()), "reno");
  }
  for (const auto& s : pair.accepted) {
    EXPECT_EQ(TosOf(s.fd.get(), ipv6), kQbss) << "listener side " << s.peer;
    EXPECT_EQ(CongestionOf(s.fd.get()), "reno");
  }
}

TEST_P(SocketTuningTest, UntunedStreamsAreNotMarked) {
  const bool ipv6 = GetParam() == "::1";
  if (ipv6 && !Ipv6LoopbackWorks()) GTEST_SKIP() << "no IPv6 on loopback here";
  StreamPair pair = Connect(GetParam(), SocketTuning{});
  ASSERT_EQ(pair.connected.streams.size(), 2u) << pair.connected.last_error;
  ASSERT_EQ(pair.accepted.size(), 2u);
  for (const auto& s : pair.connected.streams) EXPECT_EQ(TosOf(s.fd.get(), ipv6), 0);
  for (const auto& s : pair.accepted) EXPECT_EQ(TosOf(s.fd.get(), ipv6), 0);
}

INSTANTIATE_TEST_SUITE_P(Loopback, SocketTuningTest, ::testing::Values("127.0.0.1", "::1"),
                         [](const auto& info) { return info.param == "::1" ? "IPv6" : "IPv4"; });

TEST(CongestionControlTest, UnknownNameListsWhatTheKernelOffers) {
  std::string available = AvailableCongestionControl();
  ASSERT_FALSE(available.empty()) << "cannot read tcp_available_congestion_control";
  try {
    CheckCongestionControl("nosuchcc", "dtn1");
    ADD_FAILURE() << "no error for nosuchcc";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    std::string message = e.what();
    EXPECT_NE(message.find("\"nosuchcc\" is not available on dtn1"), std::string::npos) << message;
    EXPECT_NE(message.find(available), std::string::npos) << message;
  }
  // The listening end refuses too, so a remote sink fails the same way.
  try {
    DataListener listener("127.0.0.1", SocketTuning{.congestion_control = "nosuchcc"});
    ADD_FAILURE() << "listener accepted nosuchcc";
  } catch (const BraidError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUsage);
    EXPECT_NE(std::string(e.what()).find(available), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------
// The command line end to end.

/// Whether `name` is in the kernel's list, and (unless root) one an unprivileged user may set.
bool Offers(const std::string& name) {
  if (::geteuid() != 0) {
    std::ifstream allowed("/proc/sys/net/ipv4/tcp_allowed_congestion_control");
    bool found = false;
    for (std::string n; allowed >> n;) found = found || n == name;
    if (!found) return false;
  }
  std::istringstream names(AvailableCongestionControl());
  for (std::string n; names >> n;) {
    if (n == name) return true;
  }
  return false;
}

/// Local copies in a temporary directory of its own, removed after each test.
class QosCliTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(dir.empty()); }
  testing::ScopedTempDir temp_{"braid-qos"};
  std::string dir = temp_.path();
};

TEST_F(QosCliTest, CubicWorks) {
  if (!Offers("cubic")) GTEST_SKIP() << "cubic is not available (or not allowed) here";
  std::string src = dir + "/src";
  testing::WritePatternFile(src, 3 << 20, 5);
  auto r = RunBraid({"-v", "--cc", "cubic", "-q", "le", src, dir + "/dst"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(testing::SameContents(src, dir + "/dst"));
  EXPECT_NE(r.err.find("congestion control: cubic"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("qos: tos 0x04"), std::string::npos) << r.err;
}

TEST_F(QosCliTest, UnknownCongestionControlIsAUsageErrorListingTheChoices) {
  std::string src = dir + "/src";
  testing::WritePatternFile(src, 4096, 6);
  auto r = RunBraid({"--cc", "nosuchcc", src, dir + "/dst"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage)) << r.err;
  EXPECT_NE(r.err.find("\"nosuchcc\" is not available"), std::string::npos) << r.err;
  std::istringstream names(AvailableCongestionControl());
  for (std::string n; names >> n;) EXPECT_NE(r.err.find(n), std::string::npos) << n << r.err;
  EXPECT_FALSE(testing::Exists(dir + "/dst"));
  EXPECT_FALSE(testing::Exists(dir + "/dst.braid-part"));
}

TEST_F(QosCliTest, PushOverSshCarriesQosAndCongestionControlToTheRemoteEnd) {
  auto& sshd = testing::SshdFixture::Get();
  std::string to = sshd.scratch_dir() + "/pushed";
  std::string src = dir + "/src";
  testing::WritePatternFile(src, (2 << 20) + 3, 9);
  // reno is built into every kernel; the remote end parses and applies both.
  auto r = RunBraid({"-q", "af11", "--cc", "reno", src, sshd.alias() + ":" + to});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(testing::SameContents(src, to));
}

TEST_F(QosCliTest, BadQosIsAUsageError) {
  auto r = RunBraid({"-q", "cs9", "a", "b"});
  EXPECT_EQ(r.exit_code, ExitCodeFor(ErrorCode::kUsage));
  EXPECT_NE(r.err.find("qbss, le, ef"), std::string::npos) << r.err;
}

TEST_F(QosCliTest, Ipv6DataHostCopies) {
  if (!Ipv6LoopbackWorks()) GTEST_SKIP() << "no IPv6 on loopback here";
  std::string src = dir + "/src";
  testing::WritePatternFile(src, (5 << 20) + 7, 8);
  auto r = RunBraid({"-v", "-s", "3", "--data-host", "::1", src, dir + "/dst"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(testing::SameContents(src, dir + "/dst"));
  EXPECT_NE(r.err.find("sink listening on ::1 port"), std::string::npos) << r.err;
}

// ---------------------------------------------------------------------------
// Packets on the wire, captured on lo with tcpdump (root only).

/// A child with its stdin, stdout and stderr on pipes, for a conversation while it runs.
/// Killed (by its pid) and reaped if still running when it goes out of scope.
class Child {
 public:
  explicit Child(std::vector<std::string> argv) {
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
        ::pipe2(err, O_CLOEXEC) != 0) {
      return;
    }
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      ::signal(SIGPIPE, SIG_DFL);
      ::execvp(args[0], args.data());
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    in_ = in[1];
    out_ = out[0];
    err_ = err[0];
  }
  ~Child() {
    CloseIn();
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      Wait(std::chrono::seconds(10));
    }
    if (out_ >= 0) ::close(out_);
    if (err_ >= 0) ::close(err_);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  int out() const { return out_; }

  void CloseIn() {
    if (in_ >= 0) ::close(in_);
    in_ = -1;
  }
  bool WriteIn(const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(in_, data.data() + done, data.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  /// Reads stderr into err_text() until `pattern` matches it or `timeout` passes.
  bool WaitForErr(const std::regex& pattern, std::chrono::seconds timeout, std::smatch* m) {
    auto deadline = Clock::now() + timeout;
    while (!std::regex_search(err_text_, *m, pattern)) {
      if (Clock::now() >= deadline || !ReadErr(100)) return false;
    }
    return true;
  }
  /// Reads what is left on stderr (until EOF or 5 s).
  void DrainErr() {
    auto deadline = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < deadline && ReadErr(100)) {
    }
  }
  const std::string& err_text() const { return err_text_; }

  /// Exit status (128 + signal for a signal); -1 if it did not end within `timeout`.
  int Wait(std::chrono::seconds timeout) {
    auto deadline = Clock::now() + timeout;
    int status = 0;
    for (;;) {
      pid_t r = ::waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (r < 0 && errno != EINTR) return -1;
      if (Clock::now() >= deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

 private:
  /// False at EOF or error.
  bool ReadErr(int timeout_ms) {
    if (err_ < 0) return false;
    pollfd p{err_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return true;
    char buf[4096];
    ssize_t n = ::read(err_, buf, sizeof buf);
    if (n <= 0) {
      ::close(err_);
      err_ = -1;
      return false;
    }
    err_text_.append(buf, static_cast<std::size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  bool reaped_ = false;
  std::string err_text_;
};

/// What the capture saw of one TCP port: data-bearing segments by their TOS byte with the
/// ECN bits masked off (so qbss is 0x20, as -q takes it).
struct WireStats {
  std::map<int, std::uint64_t> bytes_by_tos;    ///< TCP payload bytes
  std::map<int, std::uint64_t> packets_by_tos;  ///< segments that carry data
  std::uint64_t ipv4_packets = 0;               ///< any segment, with data or not
  std::uint64_t ipv6_packets = 0;
};

std::string Describe(const WireStats& s) {
  std::string text = "bytes by TOS:";
  char tos[8];
  for (const auto& [t, bytes] : s.bytes_by_tos) {
    std::snprintf(tos, sizeof tos, "0x%02x", static_cast<unsigned>(t));
    text += std::string(" ") + tos + "=" + std::to_string(bytes) + " (" +
            std::to_string(s.packets_by_tos.at(t)) + " packets)";
  }
  return text;
}

std::uint16_t Be16(const std::uint8_t* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }

/// Reads a classic pcap of Ethernet frames (what tcpdump writes for lo), counting the
/// TCP segments to or from `port`. Sizes come from the IP headers, so a short snap length
/// is enough.
WireStats Analyze(const std::string& pcap, std::uint16_t port, std::string* why) {
  WireStats stats;
  if (pcap.size() < 24) {
    *why = "capture too short (" + std::to_string(pcap.size()) + " bytes)";
    return stats;
  }
  std::uint32_t magic;
  std::memcpy(&magic, pcap.data(), 4);
  if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
    *why = "not a native-endian pcap";
    return stats;
  }
  std::uint32_t linktype;
  std::memcpy(&linktype, pcap.data() + 20, 4);
  if (linktype != 1) {
    *why = "link type " + std::to_string(linktype) + ", expected Ethernet (1)";
    return stats;
  }
  const auto* data = reinterpret_cast<const std::uint8_t*>(pcap.data());
  std::size_t pos = 24;
  while (pos + 16 <= pcap.size()) {
    std::uint32_t caplen;
    std::memcpy(&caplen, data + pos + 8, 4);
    const std::uint8_t* frame = data + pos + 16;
    pos += 16 + caplen;
    if (pos > pcap.size() || caplen < 14 + 40) continue;
    std::uint16_t ethertype = Be16(frame + 12);
    const std::uint8_t* ip = frame + 14;
    int packet_tos = 0;
    std::size_t ip_header = 0;
    std::size_t ip_payload = 0;
    bool v6 = false;
    if (ethertype == 0x0800) {
      if (ip[9] != IPPROTO_TCP) continue;
      packet_tos = ip[1];
      ip_header = static_cast<std::size_t>(ip[0] & 0x0f) * 4;
      if (Be16(ip + 2) < ip_header) continue;  // a TSO giant would say 0
      ip_payload = Be16(ip + 2) - ip_header;
    } else if (ethertype == 0x86dd) {
      if (ip[6] != IPPROTO_TCP) continue;  // braid's segments carry no extension headers
      v6 = true;
      packet_tos = ((ip[0] & 0x0f) << 4) | (ip[1] >> 4);
      ip_header = 40;
      ip_payload = Be16(ip + 4);
    } else {
      continue;
    }
    if (caplen < 14 + ip_header + 20) continue;
    const std::uint8_t* tcp = ip + ip_header;
    if (Be16(tcp) != port && Be16(tcp + 2) != port) continue;
    (v6 ? stats.ipv6_packets : stats.ipv4_packets)++;
    std::size_t tcp_header = static_cast<std::size_t>(tcp[12] >> 4) * 4;
    if (ip_payload <= tcp_header) continue;  // a bare ACK, SYN or FIN
    std::uint64_t bytes = ip_payload - tcp_header;
    stats.bytes_by_tos[packet_tos & kDscpMask] += bytes;
    stats.packets_by_tos[packet_tos & kDscpMask]++;
  }
  return stats;
}

class WireTest : public QosCliTest {
 protected:
  void SetUp() override {
    QosCliTest::SetUp();
    if (::geteuid() != 0) GTEST_SKIP() << "capturing packets on lo needs root";
    ::signal(SIGPIPE, SIG_IGN);  // a braid that dies early must fail the test, not end it
    if (RunProcess({"sh", "-c", "command -v tcpdump"}).exit_code != 0) {
      GTEST_SKIP() << "tcpdump is not installed (tools/quickstart.sh installs it)";
    }
  }

  /// Copies kTransferBytes from stdin with `extra` options while tcpdump records the
  /// data port; returns what it saw of that port. The source is stdin so that no data
  /// moves before the capture, which needs the port, is running.
  WireStats CopyAndCapture(const std::vector<std::string>& extra,
                           const std::string& expect_address) {
    std::vector<std::string> argv = {BRAID_BINARY, "-v", "-s", "4"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("-");
    argv.push_back(dir + "/dst");
    std::filesystem::remove(dir + "/dst");
    Child braid(argv);
    EXPECT_TRUE(braid.started());
    std::smatch m;
    const std::regex listening("sink listening on (\\S+) port ([0-9]+)");
    if (!braid.WaitForErr(listening, std::chrono::seconds(30), &m)) {
      ADD_FAILURE() << "no listening line from braid: " << braid.err_text();
      return {};
    }
    EXPECT_EQ(m[1].str(), expect_address);
    const std::string port = m[2].str();

    // Immediate mode, or packets still in the capture ring when tcpdump is stopped are lost.
    Child tcpdump({"tcpdump", "-i", "lo", "-n", "-U", "--immediate-mode", "-s", "128", "-w", "-",
                   "tcp port " + port});
    EXPECT_TRUE(tcpdump.started());
    std::string pcap;
    std::thread reader([&] {
      char buf[65536];
      ssize_t n;
      while ((n = ::read(tcpdump.out(), buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0) pcap.append(buf, static_cast<std::size_t>(n));
      }
    });
    std::smatch ready;
    bool capturing =
        tcpdump.WaitForErr(std::regex("listening on"), std::chrono::seconds(20), &ready);
    EXPECT_TRUE(capturing) << tcpdump.err_text();

    std::string data(kTransferBytes, '\0');
    for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 131) >> 7);
    EXPECT_TRUE(braid.WriteIn(data));
    braid.CloseIn();
    int status = braid.Wait(std::chrono::seconds(120));
    braid.DrainErr();
    EXPECT_EQ(status, 0) << braid.err_text();
    std::string got = testing::ReadWhole(dir + "/dst");
    EXPECT_TRUE(got == data) << "copy differs (" << got.size() << " bytes)";

    // Let the last segments reach the capture, then stop it the way a user would.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::kill(tcpdump.pid(), SIGINT);
    int tcpdump_status = tcpdump.Wait(std::chrono::seconds(20));
    EXPECT_EQ(tcpdump_status, 0) << tcpdump.err_text();
    if (tcpdump_status == -1) {
      ::kill(tcpdump.pid(), SIGKILL);  // so that the reader sees EOF
      tcpdump.Wait(std::chrono::seconds(10));
    }
    reader.join();
    tcpdump.DrainErr();

    std::string why;
    WireStats stats = Analyze(pcap, static_cast<std::uint16_t>(std::stoi(port)), &why);
    EXPECT_TRUE(why.empty()) << why << "\n" << tcpdump.err_text();
    return stats;
  }
};

/// Every data byte of the transfer went out with `tos`, and nothing went out otherwise.
void ExpectAllDataMarked(const WireStats& s, int tos) {
  ASSERT_EQ(s.bytes_by_tos.size(), 1u) << Describe(s);
  EXPECT_EQ(s.bytes_by_tos.begin()->first, tos) << Describe(s);
  EXPECT_GE(s.bytes_by_tos.begin()->second, kTransferBytes) << Describe(s);
}

TEST_F(WireTest, QbssMarksEveryDataPacketOverIpv4) {
  WireStats s = CopyAndCapture({"-q", "qbss"}, "127.0.0.1");
  EXPECT_GT(s.ipv4_packets, 0u);
  EXPECT_EQ(s.ipv6_packets, 0u);
  ExpectAllDataMarked(s, kQbss);
}

TEST_F(WireTest, QbssMarksEveryDataPacketOverIpv6) {
  if (!Ipv6LoopbackWorks()) GTEST_SKIP() << "no IPv6 on loopback here";
  WireStats s = CopyAndCapture({"-q", "qbss", "--data-host", "::1"}, "::1");
  EXPECT_GT(s.ipv6_packets, 0u);
  EXPECT_EQ(s.ipv4_packets, 0u);
  ExpectAllDataMarked(s, kQbss);
}

TEST_F(WireTest, WithoutQosNothingIsMarked) {
  WireStats s = CopyAndCapture({}, "127.0.0.1");
  EXPECT_GT(s.ipv4_packets, 0u);
  ExpectAllDataMarked(s, 0);
}

}  // namespace
}  // namespace braid
